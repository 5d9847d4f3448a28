import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Deps } from "../context.js";
import type { PlannedSlot } from "../planned-slot.js";
import { TASK_MARKER } from "./paths.js";

/**
 * FLOWS "Launch", crash between creating a worktree and persisting its row: the next attempt
 * finds the worktree at the planned path. It is adopted only when it is exactly the planned
 * slot — the task directory's marker names this task, and git confirms the directory is a
 * worktree of this repository on the planned branch. Anything else is left alone (and the
 * create that follows refuses the occupied path).
 */
export async function isAdoptable(deps: Pick<Deps, "worktrees">, taskId: string, taskRootDir: string, slot: PlannedSlot): Promise<boolean> {
  if (!existsSync(slot.worktreePath)) return false;
  try {
    const marker = JSON.parse(readFileSync(join(taskRootDir, TASK_MARKER), "utf8")) as { taskId?: unknown };
    if (marker.taskId !== taskId) return false;
  } catch {
    return false;
  }
  const v = await deps.worktrees.validate({ repoPath: slot.repository.path, worktreePath: slot.worktreePath, branch: slot.branch });
  return v.ok;
}
