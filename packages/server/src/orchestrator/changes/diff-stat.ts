import type { Changes } from "@grove/protocol";
import type { Deps } from "../context.js";

/**
 * Caches the totals of freshly computed Changes for the board's summaries, so a list
 * never runs git. Changes with an unreadable slot are not cached: their totals would be wrong.
 */
export async function recordDiffStat(deps: Pick<Deps, "store" | "log" | "now">, changes: Changes): Promise<void> {
  if (changes.repositories.some((r) => r.error !== undefined)) return;
  let files = 0;
  let additions = 0;
  let deletions = 0;
  for (const r of changes.repositories) {
    files += r.files.length;
    for (const f of r.files) {
      additions += f.additions;
      deletions += f.deletions;
    }
  }
  await deps.store.putDiffStat(changes.taskId, { files, additions, deletions }, deps.now()).catch((e: unknown) => {
    // The task may have been deleted meanwhile (foreign key): nothing to cache then.
    deps.log.warn({ err: e, taskId: changes.taskId }, "diff stat not cached");
  });
}
