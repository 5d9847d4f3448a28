/**
 * The task's repositories and its environment (worktree paths and branches), with Restore for
 * a worktree that vanished (WT-5) or whose `.git` was redirected (SBX-4), and "open in editor" (the server's GROVE_EDITOR, or a
 * vscode:// link). The environment is read only once the task has sessions or Changes, so a
 * new task never asks for a resource that does not exist yet.
 */
import { EDITOR_KEY, getEditor } from "../settings/settings-api.js";
import { Link } from "../router.js";
import { PathText } from "../ui/PathText.js";
import type { Changes, Task } from "@grove/protocol";
import { useQuery } from "@tanstack/react-query";
import { call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { getEnvironment } from "../api/resources.js";
import { useCapabilities } from "../api/capabilities.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { useAction } from "../ui/use-action.js";
import { environmentWords } from "../ui/words.js";

export function Environment({
  task,
  known,
  changes,
  repoName,
  onRestore,
  restoring,
  restoreError,
}: {
  task: Task;
  known: boolean;
  changes: Changes | undefined;
  repoName(id: string): string;
  onRestore(): void;
  restoring: boolean;
  restoreError: unknown;
}) {
  const env = useQuery({ queryKey: keys.environment(task.id), queryFn: () => getEnvironment(task.id), enabled: known });
  const caps = useCapabilities();
  const editor = useAction();
  // WEB-46: the editor command comes from Settings (or GROVE_EDITOR) and takes effect without a restart.
  const editorSetting = useQuery({ queryKey: EDITOR_KEY, queryFn: getEditor, enabled: known });
  const noEditor = editorSetting.data?.source === "none";
  const missing = (changes?.repositories ?? []).filter((r) => r.status === "missing");
  const tampered = (changes?.repositories ?? []).filter((r) => r.status === "tampered");
  const envShown = task.archivedAt ? "archived" : (env.data?.status ?? "");
  const openInEditor = (repositoryId: string) => void editor.run(() => call("openTaskInEditor", { params: { id: task.id }, body: { repositoryId } }));
  return (
    <section className="card environment" aria-label="Environment">
      <h2>Repositories</h2>
      <ul className="plain">
        {[...task.repositories]
          .sort((a, b) => a.position - b.position)
          .map((r) => (
            <li key={r.repositoryId + r.position}>
              <strong>{repoName(r.repositoryId)}</strong> from <code>{r.baseBranch}</code>
              {r.checkoutBranch ? (
                <>
                  {" "}
                  · checkout <code>{r.checkoutBranch}</code>
                </>
              ) : null}
              {r.prNumber ? ` · PR #${r.prNumber}` : null}
            </li>
          ))}
      </ul>
      <h3>Environment</h3>
      {missing.length > 0 && !task.archivedAt ? (
        <div className="warning" role="alert" data-missing-worktree="true">
          <p>
            The worktree of {missing.map((r) => repoName(r.repositoryId)).join(", ")} is missing on disk. Restore recreates it in place on its branch; committed
            work on the branch comes back.
          </p>
          <button type="button" onClick={onRestore} disabled={restoring}>
            Restore worktree
          </button>
        </div>
      ) : null}
      {tampered.length > 0 && !task.archivedAt ? (
        <div className="warning" role="alert" data-tampered-worktree="true">
          <p>
            The .git link of {tampered.map((r) => repoName(r.repositoryId)).join(", ")} no longer points at the git directory Grove recorded for it (something
            in the worktree rewrote it). Grove runs nothing there — no agent, commit, update or merge — until you restore it. Restore writes the link back; the
            files in the worktree stay as they are.
          </p>
          <button type="button" onClick={onRestore} disabled={restoring}>
            Restore .git link
          </button>
        </div>
      ) : null}
      <ErrorBox error={restoreError} context="Restore" />
      {task.archivedAt ? (
        <p className="empty">Archived: the worktrees were removed (branches and saved changes are kept). Unarchive to work on it again.</p>
      ) : task.runnerId && task.runnerState === "offline" ? (
        <p className="empty" id="environment-runner-offline">
          On runner <code>{task.runnerId}</code>, which is offline: its worktrees stay there untouched. Start that runner again to work on this task.
        </p>
      ) : !known || (env.error as { status?: number } | null)?.status === 404 ? (
        <p className="empty">Not created yet: the first session creates the worktrees.</p>
      ) : env.isPending ? (
        <p className="muted">Loading the environment…</p>
      ) : (
        <ErrorBox error={env.error} context="Could not load the environment" />
      )}
      {env.data ? (
        <>
          <div className="meta env-meta">
            {/* WEB-22: an archived task's worktrees are gone, whatever the environment row still says. */}
            <span className={`badge env-${envShown}`} data-env-state={envShown}>
              {environmentWords(envShown)}
            </span>{" "}
            {/* WEB-33: the runner is an internal: behind a toggle, never in the reading line. */}
            <details className="internals">
              <summary>Details</summary>
              runner <code>{env.data.runnerId}</code>
            </details>
          </div>
          {/* WEB-45: the workspace is said only when it is not already a worktree's own path. */}
          {env.data.workspacePath && !env.data.repositories.some((r) => r.worktreePath === env.data.workspacePath) ? (
            <p className="meta">
              workspace <PathText text={env.data.workspacePath} />
            </p>
          ) : null}
          <table className="worktrees">
            <thead>
              <tr>
                <th>Repository</th>
                <th>Worktree</th>
                <th>Branch</th>
                <th>Status</th>
              </tr>
            </thead>
            <tbody>
              {env.data.repositories.map((r) => (
                <tr key={r.repositoryId + r.branchSlug} data-repository-id={r.repositoryId}>
                  <td data-label="Repository">{repoName(r.repositoryId)}</td>
                  <td data-label="Worktree">
                    <PathText text={r.worktreePath ?? "—"} />
                    {r.worktreePath && r.status === "active" && !task.archivedAt ? (
                      <div className="actions">
                        {/* WEB-46: one editor action. Without the server's Open in editor, VS Code's link stands in. */}
                        {caps?.has("POST /tasks/{id}/open-in-editor") ? (
                          <>
                            <button
                              type="button"
                              className="secondary small"
                              disabled={editor.busy || noEditor}
                              aria-describedby={noEditor ? `no-editor-${r.repositoryId}` : undefined}
                              onClick={() => openInEditor(r.repositoryId)}
                            >
                              Open in editor
                            </button>
                            {noEditor ? (
                              <Link id={`no-editor-${r.repositoryId}`} href="/settings" className="small">
                                Set an editor in Settings
                              </Link>
                            ) : null}
                          </>
                        ) : (
                          <a href={`vscode://file${r.worktreePath}`} className="small">
                            Open in VS Code
                          </a>
                        )}
                      </div>
                    ) : null}
                  </td>
                  <td data-label="Branch">
                    <PathText text={r.worktreeBranch ?? "—"} /> ← <PathText text={r.baseBranch} />
                  </td>
                  <td data-label="Status" data-worktree-status={r.status}>
                    {environmentWords(task.archivedAt ? "deleted" : r.status)}
                    {r.errorMessage ? <span className="error"> {r.errorMessage}</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      <ErrorBox error={editor.error} context="Open in editor" />
    </section>
  );
}
