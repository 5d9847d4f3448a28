import type { Command } from "commander";
import { contextOf, withCommonOptions } from "../context.js";
import { formatTable } from "../output.js";

/**
 * LIVE-5: `grove task trash` lists deleted tasks (most recently deleted first, with when each is
 * purged for good); `grove task restore-deleted <taskId>` takes one out of the trash with its
 * sessions, transcripts, branches and saved work.
 */
export function registerTaskTrashCommands(task: Command): void {
  withCommonOptions(task.command("trash").description("list deleted tasks, restorable until they are purged")).action(async (_opts: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const items = await client.call("listTrash");
    out.result(items, () =>
      items.length === 0
        ? ["the trash is empty"]
        : formatTable(
            items.map((t) => [t.id, t.title, t.deletedAt, t.purgeAt]),
            ["ID", "TITLE", "DELETED", "PURGED AT"],
          ),
    );
  });

  withCommonOptions(
    task.command("restore-deleted <taskId>").description("take a deleted task out of the trash (sessions, transcripts, branches and saved work come back)"),
  ).action(async (taskId: string, _opts: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const t = await client.call("restoreDeletedTask", { params: { id: taskId } });
    out.result(t, () => [`restored task ${t.id}: ${t.title} (its worktrees come back with the next session)`]);
  });
}
