import type { Command } from "commander";
import { checkArguments, failOnProblems } from "../arguments.js";
import { CliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { formatTable } from "../output.js";
import { resolveRepoRef } from "../repo-ref.js";

async function repoId(cmd: Command, ref: string | undefined): Promise<string | undefined> {
  if (ref === undefined) return undefined;
  const repos = await contextOf(cmd).client.call("listRepositories");
  return resolveRepoRef(ref, repos).repositoryId;
}

/** `grove task comment|comments|commit|update|merge|pr` (docs/specs/review.md). */
export function registerTaskReviewCommands(task: Command): void {
  withCommonOptions(
    task
      // CLI-19: everything is checked together (one error names all that is missing), so the
      // arguments and options are declared optional here and required in the action.
      .command("comment [taskId] [text]")
      .usage("<taskId> --repo <repoIdOrName> --path <path> --line <n> [--old] <text>")
      .description("add a review comment on a line of a file in the task's worktree")
      .option("--repo <repoIdOrName>", "the repository (required)")
      .option("--path <path>", "the file, relative to the repository (required)")
      .option("--line <n>", "the line number, 1-based (required)")
      .option("--old", "anchor to the base side of the diff instead of the new side"),
  ).action(async (taskId: string | undefined, text: string | undefined, opts: { repo?: string; path?: string; line?: string; old?: boolean }, cmd: Command) => {
    const check = checkArguments([
      ["<taskId>", taskId],
      ["--repo <repoIdOrName>", opts.repo],
      ["--path <path>", opts.path],
      ["--line <n>", opts.line],
      ["<text>", text],
    ]);
    const line = Number(opts.line);
    if (opts.line !== undefined && !(/^\s*\d+\s*$/.test(opts.line) && line >= 1))
      check.invalid.push(`--line must be a positive whole number, got "${opts.line}"`);
    failOnProblems(check);
    const { client, out } = contextOf(cmd);
    const c = await client.call("addReviewComment", {
      params: { id: taskId as string },
      // The server names a missing repository (400 invalid_request).
      body: { repositoryId: (await repoId(cmd, opts.repo)) as string, path: opts.path as string, line, side: opts.old ? "old" : "new", body: text as string },
    });
    out.result(c, () => [`comment ${c.id} on ${c.path}:${c.line} (${c.side})`]);
  });

  withCommonOptions(task.command("comments <taskId>").description("list the task's review comments")).action(
    async (taskId: string, _o: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const list = await client.call("listReviewComments", { params: { id: taskId } });
      out.result(list, () =>
        list.length === 0
          ? ["no comments"]
          : formatTable(
              list.map((c) => [c.id, c.state + (c.outdated ? " (outdated)" : ""), `${c.path}:${c.line}`, c.body.split("\n")[0] ?? ""]),
              ["ID", "STATE", "LINE", "COMMENT"],
            ),
      );
    },
  );

  withCommonOptions(
    task
      .command("commit <taskId>")
      .description("commit the task's uncommitted changes as you (hooks run)")
      .requiredOption("-m, --message <msg>", "commit message")
      .option("--repo <repoIdOrName>", "only this repository")
      .option("--path <path...>", "only these paths")
      .option("--no-verify", "skip the repository's commit hooks"),
  ).action(async (taskId: string, opts: { message: string; repo?: string; path?: string[]; verify: boolean }, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const repositoryId = await repoId(cmd, opts.repo);
    const r = await client.call("commitTaskChanges", {
      params: { id: taskId },
      body: { message: opts.message, ...(repositoryId && { repositoryId }), ...(opts.path && { paths: opts.path }), ...(!opts.verify && { noVerify: true }) },
    });
    out.result(r, () => r.results.map((x) => `committed ${x.commit.slice(0, 12)} in ${x.repositoryId}`));
  });

  withCommonOptions(
    task
      .command("update <taskId>")
      .description("bring the task branch up to date with its base (rebase; --merge to merge)")
      .option("--repo <repoIdOrName>", "only this repository")
      .option("--merge", "merge the base instead of rebasing")
      .option("--autostash", "stash uncommitted changes around the update")
      .option("--keep-conflicts", "leave conflicts in the worktree instead of aborting")
      .option("--continue", "finish an update whose conflicts were resolved (needs --repo)")
      .option("--abort", "undo an update whose conflicts were kept (needs --repo)"),
  ).action(
    async (
      taskId: string,
      opts: { repo?: string; merge?: boolean; autostash?: boolean; keepConflicts?: boolean; continue?: boolean; abort?: boolean },
      cmd: Command,
    ) => {
      const { client, out } = contextOf(cmd);
      const repositoryId = await repoId(cmd, opts.repo);
      const step = opts.continue ? "continueTaskUpdate" : opts.abort ? "abortTaskUpdate" : undefined;
      if (step && !repositoryId) throw new CliError("invalid_arguments", "--continue and --abort need --repo");
      const params = { id: taskId };
      const r = step
        ? await client.call(step, { params, body: { repositoryId: repositoryId! } })
        : await client.call("updateTaskFromBase", {
            params,
            body: {
              ...(repositoryId && { repositoryId }),
              ...(opts.merge && { mode: "merge" as const }),
              ...(opts.autostash && { autostash: true }),
              ...(opts.keepConflicts && { keepConflicts: true }),
            },
          });
      out.result(r, () =>
        r.results.map((x) => `${x.repositoryId}: ${x.outcome}${x.conflicts?.length ? ` (${x.conflicts.join(", ")})` : ""}; backup ${x.backupRef}`),
      );
    },
  );

  withCommonOptions(
    task
      .command("merge <taskId>")
      .description("merge the task branch into its base (local repositories)")
      .option("--repo <repoIdOrName>", "only this repository")
      .option("--squash", "one squashed commit")
      .option("--ff", "fast-forward only")
      .option("-m, --message <msg>", "merge commit message")
      .option("--leave-uncommitted", "merge the branch's commits although the worktree has uncommitted changes (they stay there)"),
  ).action(async (taskId: string, opts: { repo?: string; squash?: boolean; ff?: boolean; message?: string; leaveUncommitted?: boolean }, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    if (opts.squash && opts.ff) throw new CliError("invalid_arguments", "--squash and --ff exclude each other");
    const repositoryId = await repoId(cmd, opts.repo);
    const strategy = opts.squash ? "squash" : opts.ff ? "fast_forward" : "merge";
    const r = await client.call("mergeTaskIntoBase", {
      params: { id: taskId },
      body: {
        strategy,
        ...(repositoryId && { repositoryId }),
        ...(opts.message && { message: opts.message }),
        ...(opts.leaveUncommitted && { leaveUncommitted: true }),
      },
    });
    out.result(r, () =>
      r.results.map((x) => {
        const repo = x.repositoryName ?? x.repositoryId;
        return x.upToDate
          ? `${x.baseBranch} of ${repo} already holds every change of the branch; nothing merged`
          : `${x.baseBranch} of ${repo} is now ${x.commit.slice(0, 12)}`;
      }),
    );
  });

  withCommonOptions(
    task
      .command("pr <taskId>")
      .description("open (or update) the task's pull requests; --status refreshes them; --feedback sends checks and reviews to a session")
      .option("--repo <repoIdOrName>", "only this repository")
      .option("--draft", "open as a draft")
      .option("--title <title>", "pull request title (default: the task title)")
      .option("--body <text>", "pull request description")
      .option("--status", "refresh and show the pull requests' status")
      .option("--feedback <sessionId>", "send failed checks and unresolved review comments to this session"),
  ).action(
    async (taskId: string, opts: { repo?: string; draft?: boolean; title?: string; body?: string; status?: boolean; feedback?: string }, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const id = { id: taskId };
      if (opts.feedback) {
        const s = await client.call("sendPullRequestFeedback", { params: id, body: { sessionId: opts.feedback } });
        return out.result(s ?? { ok: true }, () => [`feedback sent to session ${opts.feedback}`]);
      }
      const repositoryId = await repoId(cmd, opts.repo);
      const prs = opts.status
        ? await client.call("refreshPullRequests", { params: id })
        : await client.call("createPullRequests", {
            params: id,
            body: {
              ...(repositoryId && { repositoryId }),
              ...(opts.draft && { draft: true }),
              ...(opts.title && { title: opts.title }),
              ...(opts.body !== undefined && { body: opts.body }),
            },
          });
      out.result(prs, () =>
        formatTable(
          prs.map((p) => [String(p.number), p.state + (p.draft ? " (draft)" : ""), p.checks, p.reviewDecision ?? "", p.url]),
          ["PR", "STATE", "CHECKS", "REVIEW", "URL"],
        ),
      );
    },
  );
}
