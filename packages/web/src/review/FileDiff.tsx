/**
 * One file of the review: header (status, rename, ± counts, "viewed" tick), its diff in
 * unified or split view with syntax highlighting, comment buttons on every line and comments
 * inline. Large files start collapsed; binary files show a marker instead of a diff.
 */
import type { ChangedFile } from "@grove/protocol";
import { useQuery } from "@tanstack/react-query";
import { Fragment, useMemo, useState, type ReactNode } from "react";
import { keys } from "../api/keys.js";
import { getDiff } from "../api/resources.js";
import type { Comment as ReviewComment } from "@grove/protocol";
import { ErrorBox } from "../ui/ErrorBox.js";
import { fileStatusWords } from "../ui/words.js";
import { highlightLine, languageOf } from "./highlight.js";
import { CommentForm, CommentThread } from "./LineComments.js";
import { parsePatch, splitRows, type DiffRow } from "./parse-patch.js";

const LARGE = 400;

export interface FileProps {
  taskId: string;
  repositoryId: string;
  file: ChangedFile;
  /**
   * RV-7: a file committed on the branch and edited again is shown twice, each part with its own
   * patch. Comments anchor to the working tree (side new) or the merge-base (side old), so only
   * the side a part shows truly is commentable there: old in the committed part, new in the
   * uncommitted one.
   */
  scope?: "committed" | "uncommitted";
  mode: "unified" | "split";
  comments: ReviewComment[];
  viewed: boolean;
  onViewed(v: boolean): void;
  onComment?(line: number, side: "new" | "old", body: string): Promise<unknown>;
  onResolve?(c: ReviewComment): void;
}

function Code({ row, lang }: { row: DiffRow | undefined; lang: string | undefined }) {
  if (!row) return <td className="code empty-side" />;
  return <td className={`code ${row.kind}`} dangerouslySetInnerHTML={{ __html: highlightLine(row.text, lang) || " " }} />;
}

export function FileDiff(p: FileProps) {
  const { file } = p;
  const big = file.additions + file.deletions > LARGE;
  const [open, setOpen] = useState(!big && !p.viewed);
  const [draft, setDraft] = useState<{ line: number; side: "new" | "old" } | null>(null);
  const [busy, setBusy] = useState(false);
  const diff = useQuery({
    queryKey: keys.diff(p.taskId, p.repositoryId, file.path, p.scope),
    queryFn: () => getDiff(p.taskId, p.repositoryId, file.path, p.scope),
    enabled: open && !file.binary,
  });
  const rows = useMemo(() => (diff.data ? parsePatch(diff.data.patch) : []), [diff.data]);
  const lang = languageOf(file.path);
  const anchor = `${p.repositoryId}:${file.path}${p.scope ? `:${p.scope}` : ""}`;
  const commentable = (side: "new" | "old") => p.scope === undefined || (p.scope === "committed" ? side === "old" : side === "new");
  const comments = p.comments.filter((c) => commentable(c.side));

  const gutter = (row: DiffRow | undefined, side: "new" | "old") => {
    const no = side === "new" ? row?.newNo : row?.oldNo;
    if (!row || no === undefined || row.kind === (side === "new" ? "del" : "add")) return <td className="num" />;
    return (
      <td className="num">
        {p.onComment && commentable(side) ? (
          <button
            type="button"
            className="line-comment"
            aria-label={`Comment on line ${no} (${side}) of ${file.path}`}
            onClick={() => setDraft({ line: no, side })}
          >
            {no}
          </button>
        ) : (
          no
        )}
      </td>
    );
  };
  const extra = (cols: number, row: DiffRow | undefined, side: "new" | "old"): ReactNode => {
    const no = side === "new" ? row?.newNo : row?.oldNo;
    if (no === undefined || !row || row.kind === (side === "new" ? "del" : "add")) return null;
    const here = comments.filter((c) => c.side === side && c.line === no);
    const drafting = draft?.line === no && draft.side === side;
    if (here.length === 0 && !drafting) return null;
    return (
      <tr className="comment-row">
        <td colSpan={cols}>
          <CommentThread comments={here} onResolve={p.onResolve} />
          {drafting ? (
            <CommentForm
              line={no}
              side={side}
              busy={busy}
              onCancel={() => setDraft(null)}
              onSubmit={(body) => {
                setBusy(true);
                void p
                  .onComment?.(no, side, body)
                  .then(() => setDraft(null))
                  .finally(() => setBusy(false));
              }}
            />
          ) : null}
        </td>
      </tr>
    );
  };

  const body =
    p.mode === "unified"
      ? rows.map((r, i) =>
          r.kind === "hunk" || r.kind === "note" ? (
            <tr key={i} className={r.kind}>
              <td colSpan={4}>{r.text}</td>
            </tr>
          ) : (
            <Fragment key={i}>
              <tr className={`line ${r.kind}`}>
                {gutter(r, "old")}
                {gutter(r, "new")}
                <td className="sign" aria-label={r.kind === "add" ? "added" : r.kind === "del" ? "removed" : "unchanged"}>
                  {r.kind === "add" ? "+" : r.kind === "del" ? "−" : " "}
                </td>
                <Code row={r} lang={lang} />
              </tr>
              {extra(4, r, r.kind === "del" ? "old" : "new")}
            </Fragment>
          ),
        )
      : splitRows(rows).map((r, i) =>
          r.kind !== "pair" ? (
            <tr key={i} className={r.kind}>
              <td colSpan={4}>{r.text}</td>
            </tr>
          ) : (
            <Fragment key={i}>
              <tr className="line pair">
                {gutter(r.left, "old")}
                <Code row={r.left} lang={lang} />
                {gutter(r.right, "new")}
                <Code row={r.right} lang={lang} />
              </tr>
              {extra(4, r.left && r.left.kind === "del" ? r.left : undefined, "old")}
              {extra(4, r.right, "new")}
            </Fragment>
          ),
        );

  return (
    <article className="review-file" id={anchor} data-path={file.path} data-repository-id={p.repositoryId} data-scope={p.scope ?? "all"} aria-label={file.path}>
      <header className="file-head">
        <span className={`badge file-${file.status}`}>{fileStatusWords(file.status)}</span>
        <h3 className="file-path">{file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}</h3>
        {file.oldPath ? <span className="badge renamed">renamed</span> : null}
        {file.binary ? (
          <span className="badge binary">binary</span>
        ) : (
          <span className="stat">
            <span className="add">+{file.additions}</span> {file.deletions ? <span className="del">−{file.deletions}</span> : null}
          </span>
        )}
        <label className="viewed">
          <input type="checkbox" checked={p.viewed} onChange={(e) => (p.onViewed(e.target.checked), e.target.checked && setOpen(false))} /> Viewed
        </label>
        {file.binary ? null : (
          <button type="button" className="secondary small" aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? "Collapse" : big ? `Show large diff (${file.additions + file.deletions} lines)` : "Show diff"}
          </button>
        )}
      </header>
      {file.binary ? <p className="diff-note">Binary file: no text diff.</p> : null}
      <ErrorBox error={diff.error} context={`Diff of ${file.path}`} />
      {open && diff.data ? (
        diff.data.patch.trim() === "" ? (
          <p className="diff-note">No textual changes.</p>
        ) : (
          <table className={`diff-table ${p.mode}`} aria-label={`Diff of ${file.path}`}>
            <thead className="sr-only">
              <tr>
                {p.mode === "unified" ? (
                  <>
                    <th>Old line</th>
                    <th>New line</th>
                    <th>Change</th>
                    <th>Code</th>
                  </>
                ) : (
                  <>
                    <th>Old line</th>
                    <th>Old code</th>
                    <th>New line</th>
                    <th>New code</th>
                  </>
                )}
              </tr>
            </thead>
            <tbody>{body}</tbody>
          </table>
        )
      ) : null}
      {open && diff.data?.truncated ? <p className="diff-note">The diff was truncated by the server.</p> : null}
      {!open && comments.length > 0 ? <CommentThread comments={comments} onResolve={p.onResolve} /> : null}
    </article>
  );
}
