import type { Deps } from "../context.js";
import type { PlannedSlot, RefreshContext } from "../planned-slot.js";
import { prepareLocalStartPoint } from "./refresh-local.js";
import { prepareRemoteStartPoint } from "./refresh-remote.js";

/**
 * The seam between worktree preparation and remote refresh (WT-3, RR-4, RR-5): runs the
 * repository's refresh route when — and only when — a worktree is about to be created or
 * recreated, and answers the commit-ish the new worktree starts from. Valid reuse never calls
 * this.
 *
 * Local checkouts: `refresh-local.ts` (WT-3; no network unless `pullBeforeWorktree`).
 */
export async function prepareStartPoint(
  deps: Pick<Deps, "store" | "git" | "log" | "home" | "remote">,
  slot: PlannedSlot,
  ctx: RefreshContext,
): Promise<string> {
  if (slot.repository.provider === "local") return prepareLocalStartPoint(deps, slot, ctx);
  // RR-4: provider repositories take their route (managed / executor / none) in refresh-remote.ts.
  return prepareRemoteStartPoint(deps, slot, ctx);
}
