import type { Command } from "commander";
import type { Page, Task } from "@grove/protocol";
import { CliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { resolveRepoRef } from "../repo-ref.js";
import { formatTable } from "../output.js";
import { taskStateWords } from "../output-words.js";

interface TaskLsOptions {
  archived?: boolean;
  state?: string;
  repo?: string;
  search?: string;
  parent?: string;
  limit?: string;
}

/** `--limit N`: not a positive whole number is the CLI's own usage error; the server enforces its maximum. */
export function parseLimit(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < 1) throw new CliError("invalid_arguments", `--limit must be a positive whole number, got "${text}"`);
  return n;
}

/**
 * CLI-12 `grove task ls [--state S] [--repo R] [--search Q] [--parent T] [--limit N] [--archived]`: the
 * board's read (`GET /tasks`, newest first), with its filters applied by the server, which
 * validates them (`400 invalid_request` naming the field, e.g. an unknown state). `--repo` takes
 * an id or a name, as `task create` does. `--json` prints the tasks as an array, with or
 * without `--limit`.
 */
export function registerTaskListCommand(task: Command): void {
  withCommonOptions(
    task
      .command("ls")
      .description("list tasks, newest first")
      .option("--state <states>", "only tasks in these states, comma-separated: todo, in_progress, review, done, failed")
      .option("--repo <repoIdOrName>", "only tasks on this repository (id or name)")
      .option("--search <text>", "only tasks whose title or description contains the text")
      .option("--parent <taskId>", "only the subtasks of this task")
      .option("--limit <n>", "at most this many tasks (the newest)")
      .option("--archived", "list archived tasks instead"),
  ).action(async (opts: TaskLsOptions, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const limit = opts.limit === undefined ? undefined : parseLimit(opts.limit);
    const repositoryId = opts.repo === undefined ? undefined : resolveRepoRef(opts.repo, await client.call("listRepositories")).repositoryId;
    const query = { archived: opts.archived === true, order: "newest" as const, state: opts.state, repositoryId, parentId: opts.parent, q: opts.search, limit };
    const answer = (await client.call("listTasks", { query }).catch((e: unknown) => {
      // The server names its query parameters; a person typed flags.
      if (e instanceof CliError && e.code === "invalid_request") {
        const flags = { state: "--state", repositoryId: "--repo", parentId: "--parent", q: "--search", limit: "--limit" };
        throw new CliError(e.code, renameFields(e.message, flags), { details: e.details ?? {} });
      }
      throw e;
    })) as Task[] | Page<Task>;
    const tasks = Array.isArray(answer) ? answer : answer.items;
    const more = !Array.isArray(answer) && answer.nextCursor !== null;
    out.result(tasks, () => {
      if (tasks.length === 0) return [filtered(opts) ? "no tasks match" : opts.archived ? "no archived tasks" : "no tasks"];
      return more ? [...taskTable(tasks), `(the newest ${tasks.length}; more match: raise --limit)`] : taskTable(tasks);
    });
  });
}

const filtered = (o: TaskLsOptions) => o.state !== undefined || o.repo !== undefined || o.search !== undefined || o.parent !== undefined;

/** `state: …` → `--state: …` for each API field the message names (whole words only). */
function renameFields(message: string, flags: Record<string, string>): string {
  let text = message;
  for (const [field, flag] of Object.entries(flags)) text = text.replace(new RegExp(`(^|[\\s(])${field}\\b`, "g"), `$1${flag}`);
  return text;
}

/**
 * `runner_offline` while the runner holding the task's worktrees is offline: what
 * the API answers operations on it; else the runner's id; `-` before an environment exists.
 */
export function runnerCell(t: Pick<Task, "runnerId" | "runnerState">): string {
  if (!t.runnerId) return "-";
  return t.runnerState === "offline" ? `${t.runnerId} runner_offline` : t.runnerId;
}

/**
 * The `task ls` table. CLI-11: a RUNNER column only when it tells something: the tasks listed
 * are on more than one runner, or a task's runner is offline (operations on it are refused
 * until it is back). With one runner (the usual single server) every row would say the same.
 */
export function taskTable(tasks: readonly Task[]): string[] {
  const runners = new Set(tasks.flatMap((t) => (t.runnerId ? [t.runnerId] : [])));
  if (runners.size <= 1 && !tasks.some((t) => t.runnerId && t.runnerState === "offline"))
    return formatTable(
      tasks.map((t) => [t.id, taskStateWords(t.state), t.title]),
      ["ID", "STATE", "TITLE"],
    );
  return formatTable(
    tasks.map((t) => [t.id, taskStateWords(t.state), runnerCell(t), t.title]),
    ["ID", "STATE", "RUNNER", "TITLE"],
  );
}
