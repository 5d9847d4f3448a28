/** Review comments shown under their line, and the form that adds one. */
import { useState, type FormEvent } from "react";
import type { Comment as ReviewComment } from "@grove/protocol";
import { Field } from "../ui/Field.js";

export function CommentThread({ comments, onResolve }: { comments: ReviewComment[]; onResolve?(c: ReviewComment): void }) {
  return (
    <div className="comment-thread">
      {comments.map((c) => (
        <div key={c.id} className={`comment state-${c.state} ${c.outdated ? "outdated" : ""}`} data-comment-id={c.id} data-state={c.state}>
          <p className="comment-meta">
            <span className={`badge comment-${c.state}`}>{c.state}</span>
            {c.outdated ? <span className="badge outdated">outdated</span> : null}
            <span className="muted">
              {" "}
              line {c.line} ({c.side})
            </span>
          </p>
          <p className="comment-body">{c.body}</p>
          {onResolve && c.state !== "resolved" ? (
            <button type="button" className="secondary small" onClick={() => onResolve(c)}>
              Resolve
            </button>
          ) : null}
        </div>
      ))}
    </div>
  );
}

export function CommentForm({
  line,
  side,
  onSubmit,
  onCancel,
  busy,
}: {
  line: number;
  side: "new" | "old";
  onSubmit(body: string): void;
  onCancel(): void;
  busy: boolean;
}) {
  const [body, setBody] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (body.trim()) onSubmit(body);
  };
  return (
    <form className="comment-form" aria-label={`New comment on line ${line}`} onSubmit={submit}>
      <Field label={`Comment on line ${line} (${side})`}>
        <textarea rows={3} value={body} autoFocus onChange={(e) => setBody(e.target.value)} />
      </Field>
      <div className="actions">
        <button type="submit" disabled={busy || !body.trim()}>
          Add comment
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
