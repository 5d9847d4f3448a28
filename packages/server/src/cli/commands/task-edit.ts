import type { Command } from "commander";
import type { PatchTaskBody } from "@grove/protocol";
import { CliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";

/**
 * CLI-14 `grove task edit <taskId> [--title T] [--description D]`: `PATCH /tasks/:id` with the
 * given fields only (an empty `--description ""` clears it). Nothing to change is a usage error
 * before any request, so a typo never sends an empty edit.
 */
export function registerTaskEditCommand(task: Command): void {
  withCommonOptions(
    task
      .command("edit <taskId>")
      .description("change a task's title or description")
      .option("--title <title>", "the new title")
      .option("--description <text>", 'the new description (the agent\'s brief); "" clears it'),
  ).action(async (taskId: string, opts: { title?: string; description?: string }, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const body: PatchTaskBody = {};
    if (opts.title !== undefined) body.title = opts.title;
    if (opts.description !== undefined) body.description = opts.description;
    if (Object.keys(body).length === 0) throw new CliError("invalid_arguments", "nothing to change: pass --title, --description or both");
    const t = await client.call("updateTask", { params: { id: taskId }, body });
    out.result(t, () => [`updated task ${t.id}: ${t.title}`]);
  });
}
