import type { Command } from "commander";
import { CliError, isCliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";

const CHILDREN = ["archive", "keep"] as const;

/**
 * `grove task archive <taskId> [--children archive|keep]`. MCP-3.7: a task with open subtasks is
 * archived only when told what becomes of them; the server's refusal names the API's
 * `children: "…"`, which a person at the shell types as `--children …`.
 */
export function registerTaskArchiveCommand(task: Command): void {
  withCommonOptions(
    task
      .command("archive <taskId>")
      .description("archive a task: stop its agents, save work, remove its worktrees")
      .option("--children <what>", "when the task has open subtasks: archive (them too, deepest first) or keep (only this task)"),
  ).action(async (taskId: string, opts: { children?: string }, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const children = opts.children;
    if (children !== undefined && !(CHILDREN as readonly string[]).includes(children)) {
      throw new CliError("invalid_arguments", `--children must be archive or keep, got "${children}"`);
    }
    const body = children === undefined ? undefined : { children: children as (typeof CHILDREN)[number] };
    const job = await client.call("archiveTask", { params: { id: taskId }, body }).catch((e: unknown) => {
      if (isCliError(e) && e.code === "task_has_children") {
        throw new CliError(e.code, e.message.replace(/children: "(archive|keep)"/g, "--children $1"), { status: e.status, details: e.details ?? {} });
      }
      throw e;
    });
    const what = children === "archive" ? " and its open subtasks" : "";
    out.result(job, () => [`archiving task ${taskId}${what} (cleanup job ${job?.jobId ?? "?"})`]);
  });
}
