/**
 * The Changes panel of the task page: per repository the branch, base, where it stands (in words) and the
 * changed files with status and ± counts; each file opens the review view at that file.
 */
import type { Changes } from "@grove/protocol";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Link } from "../router.js";
import { fileStatusWords } from "../ui/words.js";

const commits = (n: number) => `${n} commit${n === 1 ? "" : "s"}`;

/**
 * Where the branch stands against its base, in words. Nothing ahead on a Done task is a merged
 * one (a merge commit leaves the branch "behind" by that commit, which is not news to anyone).
 */
export function branchPosition(ahead: number, behind: number, base: string, done: boolean): string {
  if (ahead === 0 && done) return `Merged into ${base}`;
  if (ahead === 0) return behind === 0 ? `Up to date with ${base}` : `Nothing to merge yet; ${base} has ${commits(behind)} newer`;
  return `${commits(ahead)} to merge into ${base}${behind > 0 ? `; ${base} has ${commits(behind)} newer (Update from base brings them in)` : ""}`;
}

export function ChangesSummary({
  taskId,
  changes,
  error,
  repoName,
  archived = false,
  done = false,
}: {
  taskId: string;
  changes: Changes | undefined;
  error: unknown;
  repoName(id: string): string;
  archived?: boolean;
  done?: boolean;
}) {
  const repos = changes?.repositories ?? [];
  return (
    <section className="card changes" aria-label="Changes">
      <div className="card-head">
        <h2>Changes</h2>
        {repos.some((r) => r.files.length > 0) ? <Link href={`/tasks/${taskId}/review`}>Review all changes</Link> : null}
      </div>
      <ErrorBox error={error} context="Could not load changes" />
      {/* The first read can take seconds on a busy machine: say so rather than show an empty card. */}
      {changes === undefined && !error ? <p className="muted changes-loading">Loading changes…</p> : null}
      {changes && repos.length === 0 ? <p className="empty">No worktrees yet: the first session creates them.</p> : null}
      {repos.map((r) => (
        <div className="repo-changes" key={r.repositoryId + (r.worktreeId ?? "")} data-repository-id={r.repositoryId}>
          <h3>{repoName(r.repositoryId)}</h3>
          <p className="meta">
            <code>{r.branch}</code> ← <code>{r.baseBranch}</code>
          </p>
          <p className="branch-position" data-ahead={r.ahead} data-behind={r.behind}>
            {branchPosition(r.ahead, r.behind, r.baseBranch, done)}
          </p>
          {r.error && r.status !== "missing" ? <p className="error">{r.error}</p> : null}
          {r.files.length === 0 ? (
            <p className="empty">
              {r.status === "missing"
                ? archived
                  ? "Archived: the worktree was removed (its branch and saved work are kept)."
                  : "The worktree is missing."
                : "No changed files."}
            </p>
          ) : (
            <table className="files">
              <thead>
                <tr>
                  <th>Status</th>
                  <th>File</th>
                  <th className="num">Added</th>
                  <th className="num">Removed</th>
                </tr>
              </thead>
              <tbody>
                {r.files.map((f) => (
                  <tr key={f.path} data-path={f.path}>
                    <td>
                      <span className={`badge file-${f.status}`}>{fileStatusWords(f.status)}</span>
                    </td>
                    <td>
                      <Link href={`/tasks/${taskId}/review#${encodeURIComponent(`${r.repositoryId}:${f.path}`)}`} className="file">
                        {f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}
                      </Link>
                    </td>
                    <td className="num add">{f.binary ? "bin" : `+${f.additions}`}</td>
                    <td className="num del">{f.binary || f.deletions === 0 ? "" : `−${f.deletions}`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      ))}
    </section>
  );
}
