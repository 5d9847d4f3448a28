import type { Command } from "commander";
import type { Changes, DiffScope, Repository, Task } from "@grove/protocol";
import { CliError, allInOrder } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { formatTable } from "../output.js";
import { resolveRepoRef } from "../repo-ref.js";

const STATUS_LETTER: Record<string, string> = {
  added: "A",
  modified: "M",
  deleted: "D",
  renamed: "R",
  untracked: "?",
  conflicted: "U",
  typechange: "T",
};

/**
 * `grove task diff <taskId> [--path P] [--repo R] [--scope S]`: the task's Changes, or one file's
 * patch (RV-7: `--scope committed|uncommitted` narrows it to the branch's commits or to what is
 * not committed yet).
 */
export function registerTaskDiffCommand(task: Command): void {
  withCommonOptions(
    task
      .command("diff <taskId>")
      .description("show the task's changes per repository, or one file's patch with --path")
      .option("--path <path>", "a file path inside the repository's worktree: print its patch")
      .option("--repo <repoIdOrName>", "which repository --path belongs to (needed only when ambiguous)")
      .option("--scope <scope>", "with --path: all (default: base to working tree), committed (the branch's commits) or uncommitted"),
  ).action(async (taskId: string, opts: { path?: string; repo?: string; scope?: string }, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const id = { id: taskId };
    // People read repositories by name; --json keeps the ids of the API's Changes.
    const [changes, repos] = await allInOrder<[Changes, Repository[] | undefined]>([
      client.call("getTaskChanges", { params: id }),
      out.json && opts.path === undefined ? Promise.resolve(undefined) : client.call("listRepositories"),
    ]);
    if (opts.scope !== undefined && opts.path === undefined) throw new CliError("invalid_arguments", "--scope needs --path");
    if (opts.path === undefined) {
      out.result(changes, () => describeChanges(changes, repos ?? []));
      return;
    }
    const repositoryId = await pickRepository(
      opts.path,
      opts.repo,
      changes,
      async () => repos ?? [],
      () => client.call("getTask", { params: id }),
    );
    const diff = await client.call("getTaskFileDiff", {
      params: id,
      // The server names a scope it does not know (400 invalid_request).
      query: { repositoryId, path: opts.path, ...(opts.scope !== undefined ? { scope: opts.scope as DiffScope } : {}) },
    });
    out.result(diff, () => {
      if (diff.binary) return [`Binary file ${diff.path} differs`];
      const lines = diff.patch === "" ? [`no changes in ${diff.path}`] : [diff.patch.replace(/\n$/, "")];
      if (diff.truncated) lines.push("… (patch truncated)");
      return lines;
    });
  });
}

/**
 * The repository a `--path` refers to: `--repo` when given; otherwise the one repository whose
 * changed files include the path; otherwise the task's only repository.
 */
async function pickRepository(
  path: string,
  repoRef: string | undefined,
  changes: Changes,
  listRepos: () => Promise<Repository[]>,
  getTask: () => Promise<Task>,
): Promise<string> {
  if (repoRef !== undefined) return resolveRepoRef(repoRef, await listRepos()).repositoryId;
  const holding = changes.repositories.filter((r) => r.files.some((f) => f.path === path || f.oldPath === path));
  if (holding.length === 1) return holding[0]!.repositoryId;
  const t = await getTask();
  if (t.repositories.length === 1) return t.repositories[0]!.repositoryId;
  throw new CliError("invalid_arguments", `the task has ${t.repositories.length} repositories; name one with --repo`);
}

/** Human lines for a task's Changes: a header per repository (by name), then `X  path  +a -d`. */
export function describeChanges(changes: Changes, repos: readonly Pick<Repository, "id" | "name">[] = []): string[] {
  const lines: string[] = [];
  for (const r of changes.repositories) {
    const name = repos.find((x) => x.id === r.repositoryId)?.name ?? r.repositoryId;
    lines.push(`${name}  ${r.branch} (base ${r.baseBranch}, ahead ${r.ahead}, behind ${r.behind})`);
    if (r.error) lines.push(`  error: ${r.error}`);
    if (r.files.length === 0) lines.push("  no changes");
    const rows = r.files.map((f) => [
      `  ${STATUS_LETTER[f.status] ?? "?"}`,
      f.oldPath ? `${f.oldPath} -> ${f.path}` : f.path,
      f.binary ? "binary" : `+${f.additions} -${f.deletions}`,
      // RV-7: a file committed on the branch and edited again is both.
      f.staged || f.unstaged ? (f.committed ? "committed, uncommitted" : "uncommitted") : "",
    ]);
    lines.push(...formatTable(rows));
    if (r.truncated) lines.push("  … (file list truncated)");
  }
  if (changes.repositories.length === 0) lines.push("no repositories in the task's workspace");
  return lines;
}
