import type { Command } from "commander";
import type { CreateTaskBody, Repository, Session, Task } from "@grove/protocol";
import { CliError, allInOrder, isCliError, withCliFlags } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { formatTable, shortTime } from "../output.js";
import { resolveRepoRef } from "../repo-ref.js";
import { registerTaskDiffCommand } from "./task-diff.js";
import { registerTaskStartCommand } from "./task-start.js";
import { registerTaskRestoreCommand } from "./task-restore.js";
import { registerTaskReviewCommands } from "./task-review.js";

interface TaskCreateOptions {
  title: string;
  description?: string;
  repo: string[];
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
      .requiredOption("--title <title>", "task title")
      .option("--description <text>", "task description (the agent's brief)")
      .requiredOption("--repo <repoIdOrName[@baseBranch]>", "repository to attach, by id or name, with an optional base branch; repeat for several", collect)
      .option("--pr <number>", "check out this pull request in the first --repo")
      .option("--runner-label <label>", "a label the runner of the task's worktrees must advertise (GROVE_RUNNER_LABELS); repeat for several", collect)
      .option("-q, --quiet", "print only the new task's id (for scripts: TASK=$(grove task create …))"),
  ).action(async (opts: TaskCreateOptions, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const repos = await client.get<Repository[]>("/repositories");
    const repositories: CreateTaskBody["repositories"] = opts.repo.map((ref) => resolveRepoRef(ref, repos));
    if (opts.pr !== undefined) {
      const pr = Number(opts.pr);
      if (!Number.isInteger(pr) || pr <= 0) throw new CliError("invalid_arguments", `--pr must be a positive integer, got "${opts.pr}"`);
      repositories[0]!.prNumber = pr;
    }
    const body: CreateTaskBody = { title: opts.title, repositories };
    if (opts.description !== undefined) body.description = opts.description;
    if (opts.runnerLabel !== undefined) body.runnerLabels = opts.runnerLabel;
    const created = await client.post<Task>("/tasks", body);
    out.result(created, () => (opts.quiet ? [created.id] : [`created task ${created.id}: ${created.title}`]));
  });

  withCommonOptions(task.command("ls").description("list tasks").option("--archived", "list archived tasks instead")).action(
    async (opts: { archived?: boolean }, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const tasks = await client.get<Task[]>("/tasks", { archived: opts.archived === true });
      out.result(tasks, () =>
        tasks.length === 0 ? [opts.archived ? "no archived tasks" : "no tasks"] : taskTable(tasks),
      );
    },
  );

  withCommonOptions(task.command("show <taskId>").description("show a task, its repositories and sessions")).action(
    async (taskId: string, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const id = encodeURIComponent(taskId);
      // The JSON answer is the contract's Task plus its sessions (what the text lists too).
      const [t, sessions, repos] = await allInOrder<[Task, Session[], Repository[]]>([
        client.get<Task>(`/tasks/${id}`),
        client.get<Session[]>(`/tasks/${id}/sessions`),
        out.json ? Promise.resolve([] as Repository[]) : client.get<Repository[]>("/repositories").catch(() => [] as Repository[]),
      ]);
      out.result({ ...t, sessions }, () => describeTask(t, repos, sessions));
    },
  );

  registerTaskStartCommand(task);
  registerTaskDiffCommand(task);
  registerTaskRestoreCommand(task);
  registerTaskReviewCommands(task);

  withCommonOptions(task.command("archive <taskId>").description("archive a task: stop its agents, save work, remove its worktrees")).action(
    async (taskId: string, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const job = await client.post<{ jobId: string }>(`/tasks/${encodeURIComponent(taskId)}/archive`);
      out.result(job, () => [`archiving task ${taskId} (cleanup job ${job?.jobId ?? "?"})`]);
    },
  );

  withCommonOptions(task.command("unarchive <taskId>").description("bring an archived task back")).action(
    async (taskId: string, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const t = await client.post<Task>(`/tasks/${encodeURIComponent(taskId)}/unarchive`);
      out.result(t, () => [`unarchived task ${t.id}: ${t.title}`]);
    },
  );

  withCommonOptions(
    task.command("rm <taskId>").description("delete a task and its worktrees").option("--discard-changes", "delete even if worktrees hold uncommitted work"),
  ).action(async (taskId: string, opts: { discardChanges?: boolean }, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const query = opts.discardChanges ? { discardChanges: true } : undefined;
    const job = await client.delete<{ jobId: string }>(`/tasks/${encodeURIComponent(taskId)}`, query).catch((e: unknown) => {
      // The API's consent flag is a CLI option here: say which one.
      if (isCliError(e) && e.code === "dirty_worktree") throw new CliError(e.code, withCliFlags(e.message, { discardChanges: "--discard-changes" }), { details: e.details ?? {} });
      throw e;
    });
    out.result(job, () => [`deleting task ${taskId} (cleanup job ${job?.jobId ?? "?"})`]);
  });

  withCommonOptions(
    task.command("reset <taskId>").description("remove the task's worktrees and keep its branches and saved work; the next session recreates them (refused while a session runs)"),
  ).action(async (taskId: string, _opts: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const job = await client.post<{ jobId: string }>(`/tasks/${encodeURIComponent(taskId)}/environment/reset`);
    out.result(job, () => [`resetting task ${taskId}'s workspace (cleanup job ${job?.jobId ?? "?"})`]);
  });
}

/**
 * `runner_offline` while the runner holding the task's worktrees is offline (issue 15): what
 * the API answers operations on it; else the runner's id; `-` before an environment exists.
 */
export function runnerCell(t: Pick<Task, "runnerId" | "runnerState">): string {
  if (!t.runnerId) return "-";
  return t.runnerState === "offline" ? `${t.runnerId} runner_offline` : t.runnerId;
}

/** The `task ls` table: a RUNNER column once any listed task has an environment (issue 15). */
export function taskTable(tasks: readonly Task[]): string[] {
  if (!tasks.some((t) => t.runnerId)) return formatTable(tasks.map((t) => [t.id, t.state, t.title]), ["ID", "STATE", "TITLE"]);
  return formatTable(tasks.map((t) => [t.id, t.state, runnerCell(t), t.title]), ["ID", "STATE", "RUNNER", "TITLE"]);
}

/** Human lines for `task show`. */
export function describeTask(t: Task, repos: readonly Repository[], sessions: readonly Session[]): string[] {
  const nameOf = (id: string) => repos.find((r) => r.id === id)?.name;
  const lines = [`task ${t.id}  ${t.state}  ${t.title}`];
  if (t.description) lines.push(`description: ${t.description}`);
  lines.push(`created: ${shortTime(t.createdAt)}  updated: ${shortTime(t.updatedAt)}${t.archivedAt ? `  archived: ${shortTime(t.archivedAt)}` : ""}`);
  if (t.runnerId) lines.push(`runner: ${t.runnerId} ${t.runnerState === "offline" ? "runner_offline (its worktrees are there: operations are refused until it is back)" : (t.runnerState ?? "")}`.trimEnd());
  lines.push("repositories:");
  const repoRows = [...t.repositories]
    .sort((a, b) => a.position - b.position)
    .map((r) => {
      const extra = [r.checkoutBranch ? `checkout ${r.checkoutBranch}` : "", r.prNumber !== undefined ? `pr #${r.prNumber}` : ""].filter(Boolean).join(" ");
      const name = nameOf(r.repositoryId);
      return [`  ${r.repositoryId}`, name ?? "", `base ${r.baseBranch}`, extra];
    });
  lines.push(...formatTable(repoRows));
  lines.push(sessions.length === 0 ? "sessions: none" : "sessions:");
  lines.push(...formatTable(sessions.map((s) => [`  ${s.id}`, s.agent, s.state, s.lastError ? `${s.lastError.code}: ${s.lastError.message}` : ""])));
  return lines;
}
