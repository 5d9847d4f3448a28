import { existsSync } from "node:fs";
import type { DoctorFinding } from "@grove/protocol";
import { backupRefs, operationInProgress } from "../../git/rebase.js";
import type { Deps } from "../context.js";

/**
 * Part of `grove doctor` (read-only): a rebase or merge of update-from-base left stopped
 * in a task's worktree — conflicts kept, or a crash mid-way — with the backup ref that holds the
 * branch as it was. Resolve with `…/update-from-base/continue` or `/abort`.
 */
export async function reviewFindings(
  deps: Pick<Deps, "store" | "git" | "worktrees">,
  inventory: Awaited<ReturnType<Deps["store"]["listTaskInventory"]>>,
): Promise<DoctorFinding[]> {
  const out: DoctorFinding[] = [];
  for (const task of inventory) {
    for (const row of task.rows) {
      if (row.status !== "active" || !row.worktreePath || !existsSync(row.worktreePath)) continue;
      // SBX-4: pinned to the recorded git dir; a tampered worktree is reported by the doctor itself.
      const repo = await deps.store.getRepository(row.repositoryId);
      const link = repo ? await deps.worktrees.link({ repoPath: repo.path, worktreePath: row.worktreePath }).catch(() => null) : null;
      if (link?.state !== "ok") continue;
      const kind = await operationInProgress(deps.git, link.pin).catch(() => null);
      if (!kind) continue;
      const backup = (await backupRefs(deps.git, link.pin, task.taskId).catch(() => [])).pop();
      out.push({
        kind: "rebase_in_progress",
        path: row.worktreePath,
        taskId: task.taskId,
        repositoryId: row.repositoryId,
        ...(backup && { expected: backup }),
        actual: kind,
        message: `a ${kind} of update-from-base is stopped in ${row.worktreePath}${backup ? `; the branch before it is saved at ${backup}` : ""} (continue or abort it)`,
      });
    }
  }
  return out;
}
