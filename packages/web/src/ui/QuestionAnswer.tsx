/**
 * MCP-3: an agent's question answered where the person sees it (the inbox, the task page) — one
 * button per choice, or a free answer — through `POST /inbox/:id/answer`. `onAnswered` hears the
 * answer once the server took it.
 */
import { useState } from "react";
import { answerQuestion, type AttentionItem } from "../live/attention.js";

export function QuestionAnswer({ item, label, onAnswered }: { item: AttentionItem; label: string; onAnswered?: (answer: string) => void }) {
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const send = (answer: string) => {
    setError(null);
    setBusy(true);
    answerQuestion(item.id, answer)
      .then(() => onAnswered?.(answer))
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
      .finally(() => setBusy(false));
  };
  return (
    <div className="question-answer" role="group" aria-label={label}>
      {item.choices ? (
        item.choices.map((c) => (
          <button key={c} type="button" className="small" disabled={busy} onClick={() => send(c)}>
            {c}
          </button>
        ))
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (text.trim()) send(text.trim());
          }}
        >
          <input aria-label="Your answer" value={text} onChange={(e) => setText(e.target.value)} />
          <button type="submit" className="small" disabled={busy}>
            Send answer
          </button>
        </form>
      )}
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
