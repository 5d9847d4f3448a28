import type { Command } from "commander";
import type { CreateTaskBody, Environment, EnvironmentRepository, Repository, Session, Task } from "@grove/protocol";
import { checkArguments, failOnProblems } from "../arguments.js";
import { CliError, allInOrder, isCliError, withCliFlags } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { formatTable, shortTime } from "../output.js";
import { lastErrorWords, sessionStateWords, taskStateWords } from "../output-words.js";
import { resolveRepoRef } from "../repo-ref.js";
import { registerTaskDiffCommand } from "./task-diff.js";
import { registerTaskEditCommand } from "./task-edit.js";
import { registerTaskListCommand } from "./task-ls.js";
import { registerTaskBudgetCommand } from "./usage.js";
import { registerTaskStartCommand } from "./task-start.js";
import { registerTaskRestoreCommand } from "./task-restore.js";
import { registerTaskTrashCommands } from "./task-trash.js";
import { registerTaskReviewCommands } from "./task-review.js";
import { registerTaskArchiveCommand } from "./task-archive.js";

interface TaskCreateOptions {
  title?: string;
  description?: string;
  repo?: string[];
  pr?: string;
  runnerLabel?: string[];
  quiet?: boolean;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `grove task create|ls|show|start|diff|archive|unarchive|rm|reset`. */
export function registerTaskCommands(program: Command): void {
  const task = program.command("task").description("create, inspect and run tasks");

  withCommonOptions(
    task
      .command("create")
      .description("create a task on one or more repositories")
      // CLI-19: required, but checked in the action together with the other values.
      .option("--title <title>", "task title (required)")
      .option("--description <text>", "task description (the agent's brief)")
      .option("--repo <repoIdOrName[@baseBranch]>", "repository to attach, by id or name, with an optional base branch; repeat for several (required)", collect)
      .option("--pr <number>", "check out this pull request in the first --repo")
      .option("--runner-label <label>", "a label the runner of the task's worktrees must advertise (GROVE_RUNNER_LABELS); repeat for several", collect)
      .option("-q, --quiet", "print only the new task's id (for scripts: TASK=$(grove task create …))"),
  ).action(async (opts: TaskCreateOptions, cmd: Command) => {
    const check = checkArguments([
      ["--title <title>", opts.title],
      ["--repo <repoIdOrName[@baseBranch]>", opts.repo],
    ]);
    const pr = Number(opts.pr);
    if (opts.pr !== undefined && !(Number.isInteger(pr) && pr > 0)) check.invalid.push(`--pr must be a positive integer, got "${opts.pr}"`);
    failOnProblems(check);
    const { client, out } = contextOf(cmd);
    const repos = await client.call("listRepositories");
    const repositories: CreateTaskBody["repositories"] = (opts.repo ?? []).map((ref) => resolveRepoRef(ref, repos));
    if (opts.pr !== undefined) repositories[0]!.prNumber = pr;
    const body: CreateTaskBody = { title: opts.title as string, repositories };
    if (opts.description !== undefined) body.description = opts.description;
    if (opts.runnerLabel !== undefined) body.runnerLabels = opts.runnerLabel;
    const created = await client.call("createTask", { body });
    out.result(created, () => (opts.quiet ? [created.id] : [`created task ${created.id}: ${created.title}`]));
  });

  registerTaskListCommand(task);

  withCommonOptions(
    task
      .command("show <taskId>")
      .description("show a task, its parent, its repositories with their worktree paths and branches, its sessions, the agent's progress and its subtasks"),
  ).action(async (taskId: string, _opts: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const id = { id: taskId };
    // The JSON answer is the contract's Task plus its sessions and environment (what the text lists too).
    const [t, sessions, env, repos, live, archived] = await allInOrder<[Task, Session[], Environment | CliError | null, Repository[], Task[], Task[]]>([
      client.call("getTask", { params: id }),
      // Without ?limit the lists answer plain arrays (the other shapes of their response are pages).
      client.call("listTaskSessions", { params: id }) as Promise<Session[]>,
      // CLI-13: the worktrees are extra detail: no environment yet (404) is a task without
      // worktrees, and one the server cannot read now (its runner offline) still shows the task.
      client.call("getTaskEnvironment", { params: id }).catch((e: unknown) => (isCliError(e) && e.status !== 404 ? e : null)),
      out.json ? Promise.resolve([] as Repository[]) : client.call("listRepositories").catch(() => [] as Repository[]),
      // MCP-3: the subtasks its agents made, archived ones too.
      client.call("listTasks", { query: { parentId: taskId } }) as Promise<Task[]>,
      client.call("listTasks", { query: { parentId: taskId, archived: true } }) as Promise<Task[]>,
    ]);
    const environment = env instanceof CliError ? null : env;
    const subtasks = [...live, ...archived].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    // The parent's title is a nicety: a parent that cannot be read still shows its id.
    const parent = t.parentId ? await client.call("getTask", { params: { id: t.parentId } }).catch(() => undefined) : undefined;
    out.result({ ...t, sessions, environment, subtasks }, () => [
      ...describeTask(t, repos, sessions, environment, { subtasks, parent }),
      ...(env instanceof CliError ? [`worktrees: not readable now (${env.code}: ${env.message})`] : []),
    ]);
  });

  registerTaskEditCommand(task);
  registerTaskStartCommand(task);
  registerTaskDiffCommand(task);
  registerTaskRestoreCommand(task);
  registerTaskTrashCommands(task);
  registerTaskReviewCommands(task);
  registerTaskBudgetCommand(task);

  registerTaskArchiveCommand(task);

  withCommonOptions(task.command("unarchive <taskId>").description("bring an archived task back")).action(
    async (taskId: string, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const t = await client.call("unarchiveTask", { params: { id: taskId } });
      out.result(t, () => [`unarchived task ${t.id}: ${t.title}`]);
    },
  );

  withCommonOptions(
    task
      .command("rm <taskId>")
      .description("delete a task: its worktrees go, the task goes to the trash (grove task trash, restore-deleted)")
      .option("--discard-changes", "delete even if worktrees hold uncommitted work (kept in the trash until the purge)"),
  ).action(async (taskId: string, opts: { discardChanges?: boolean }, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const query = opts.discardChanges ? { discardChanges: true } : undefined;
    const job = await client.call("deleteTask", { params: { id: taskId }, query }).catch((e: unknown) => {
      // The API's consent flag is a CLI option here: say which one.
      if (isCliError(e) && e.code === "dirty_worktree")
        throw new CliError(e.code, withCliFlags(e.message, { discardChanges: "--discard-changes" }), { details: e.details ?? {} });
      throw e;
    });
    out.result(job, () => [`deleting task ${taskId} (cleanup job ${job?.jobId ?? "?"})`]);
  });

  withCommonOptions(
    task
      .command("reset <taskId>")
      .description("remove the task's worktrees and keep its branches and saved work; the next session recreates them (refused while a session runs)"),
  ).action(async (taskId: string, _opts: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const job = await client.call("resetTaskEnvironment", { params: { id: taskId } });
    out.result(job, () => [`resetting task ${taskId}'s workspace (cleanup job ${job?.jobId ?? "?"})`]);
  });
}

/**
 * Human lines for `task show`. CLI-13: under each repository, its worktree's branch and path
 * (from the task's environment), so a person can `cd` there or check the branch out; a worktree
 * that is not on disk as recorded says so, with the command that fixes it.
 */
export function describeTask(
  t: Task,
  repos: readonly Repository[],
  sessions: readonly Session[],
  environment: Environment | null = null,
  family: { subtasks?: readonly Task[]; parent?: Task | undefined } = {},
): string[] {
  const nameOf = (id: string) => repos.find((r) => r.id === id)?.name;
  const lines = [`task ${t.id}  ${taskStateWords(t.state)}  ${t.title}`];
  if (t.parentId) lines.push(`parent: ${t.parentId}${family.parent ? `  ${taskStateWords(family.parent.state)}  ${family.parent.title}` : ""}`);
  if (t.description) lines.push(`description: ${t.description}`);
  lines.push(`created: ${shortTime(t.createdAt)}  updated: ${shortTime(t.updatedAt)}${t.archivedAt ? `  archived: ${shortTime(t.archivedAt)}` : ""}`);
  if (t.runnerId)
    lines.push(
      `runner: ${t.runnerId} ${t.runnerState === "offline" ? "runner_offline (its worktrees are there: operations are refused until it is back)" : (t.runnerState ?? "")}`.trimEnd(),
    );
  if (environment?.workspacePath) lines.push(`workspace: ${environment.workspacePath}`);
  lines.push("repositories:");
  for (const r of [...t.repositories].sort((a, b) => a.position - b.position)) {
    const extra = [r.checkoutBranch ? `checkout ${r.checkoutBranch}` : "", r.prNumber !== undefined ? `pr #${r.prNumber}` : ""].filter(Boolean).join(" ");
    const name = nameOf(r.repositoryId);
    lines.push([`  ${name ? `${name} (${r.repositoryId})` : r.repositoryId}`, `base ${r.baseBranch}`, extra].filter(Boolean).join("  "));
    lines.push(...worktreeLines(environment?.repositories.find((e) => e.repositoryId === r.repositoryId)));
  }
  lines.push(sessions.length === 0 ? "sessions: none" : "sessions:");
  lines.push(...formatTable(sessions.map((s) => [`  ${s.id}`, s.agent, sessionStateWords(s.state), lastErrorWords(s.lastError, s.lastTurn?.reason)])));
  lines.push(...progressLines(t.progress));
  if (family.subtasks) {
    const subs = family.subtasks;
    lines.push(subs.length === 0 ? "subtasks: none" : `subtasks: ${subs.length}, ${subs.filter((c) => c.state === "done").length} done`);
    lines.push(...formatTable(subs.map((c) => [`  ${c.id}`, taskStateWords(c.state), c.archivedAt ? "archived" : "", c.title])));
  }
  return lines;
}

/** MCP-2: the agent's latest report_progress: its status line, then each plan item with its status. */
function progressLines(p: Task["progress"]): string[] {
  if (!p) return ["progress: none reported"];
  const plan = p.plan ?? [];
  const done = plan.filter((i) => i.status === "completed").length;
  const lines = [`progress: ${p.status}${plan.length > 0 ? `  (${done} of ${plan.length} done)` : ""}  reported ${shortTime(p.updatedAt)}`];
  lines.push(...formatTable(plan.map((i) => [`  ${i.status}`, i.content])));
  return lines;
}

/** The branch and path lines of one repository's worktree, indented under it. */
function worktreeLines(e: EnvironmentRepository | undefined): string[] {
  if (!e) return ["    worktree: none yet (the first session creates it)"];
  const lines = [`    branch: ${e.worktreeBranch ?? e.branchSlug}`];
  if (e.status === "deleted") lines.push("    worktree: removed (the branch and saved work are kept)");
  else lines.push(`    worktree: ${e.worktreePath ?? "-"}${e.worktreeState && e.worktreeState !== "ok" ? `  (${e.worktreeState})` : ""}`);
  if (e.errorMessage) lines.push(`    error: ${e.errorMessage}`);
  if (e.action && e.worktreeState !== "ok") lines.push(`    fix: ${e.action}`);
  return lines;
}
