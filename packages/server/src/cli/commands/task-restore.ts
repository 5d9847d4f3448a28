import type { Command } from "commander";
import { contextOf, withCommonOptions } from "../context.js";

/**
 * `grove task restore <taskId>` (WT-5, LC-5): recreates the task's missing worktrees in place
 * (same path and branch; an unarchived task's worktrees with their saved uncommitted work).
 * A directory that is not the recorded worktree is refused (409 `workspace_reuse_unsafe`, with
 * the action that fixes it), never overwritten.
 */
export function registerTaskRestoreCommand(task: Command): void {
  withCommonOptions(task.command("restore <taskId>").description("recreate the task's missing worktrees in place (same path, same branch)")).action(
    async (taskId: string, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const env = await client.call("restoreTaskEnvironment", { params: { id: taskId } });
      out.result(env, () => [
        `restored the workspace of task ${taskId}: ${env.status}`,
        ...env.repositories
          .filter((r) => r.status === "active")
          .map((r) => `  ${r.worktreePath ?? "(no worktree)"}  ${r.worktreeBranch ?? ""}  ${r.worktreeState ?? ""}`),
      ]);
    },
  );
}
