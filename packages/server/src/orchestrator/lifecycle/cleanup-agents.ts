import type { CleanupSnapshot } from "../../domain/cleanup-job.js";
import { AppError } from "../../domain/errors.js";
import { stopSessionGroups, survivorsError } from "./agent-groups.js";
import type { Deps } from "../context.js";
import { terminals } from "../terminals.js";

const GRACE_MS = 3000;
const KILL_WAIT_MS = 2000;

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * LC-3 step 1, SEC-7: every process of the task's agents is gone before any worktree is
 * touched. Live handles are stopped gracefully (ACP connection closed, SIGTERM, then SIGKILL),
 * then every recorded process group — the snapshot's and the database's, of every runner's
 * sessions (a session attached through another server process runs its agent on this host, in
 * these worktrees, ST-3) — is signalled as a whole, whether or not its leader is still alive,
 * and waited for (bounded). A process that survives → AppError, so the job keeps the worktrees
 * and retries (a failed or uncertain stop never leads to a removal).
 */
export async function stopTaskAgents(deps: Pick<Deps, "store" | "agents" | "log" | "launches">, snapshot: CleanupSnapshot): Promise<void> {
  await terminals.killTask(snapshot.taskId);
  await waitForLaunches(deps, snapshot);
  const survivors = await stopSessionGroups(deps, snapshot.sessionIds, { graceMs: GRACE_MS, killWaitMs: KILL_WAIT_MS }, snapshot.agentProcesses);
  if (survivors.length > 0) throw survivorsError(`task ${snapshot.taskId}: worktrees kept, the cleanup will retry`, survivors);
}

const LAUNCH_WAIT_MS = 15_000;

/**
 * A session still `starting` may be materializing or spawning its agent right now. An agent
 * already spawned is stopped (its launch fails); otherwise the launch re-checks the task after
 * the spawn and stops the agent itself (launch.ts). The job waits for every such session so the
 * worktree is not pulled from under a starting agent. Still
 * starting after the wait → an uncertain stop: throw, keep the worktrees, retry (LC-3).
 */
async function waitForLaunches(deps: Pick<Deps, "store" | "agents" | "launches">, snapshot: CleanupSnapshot): Promise<void> {
  const deadline = Date.now() + LAUNCH_WAIT_MS;
  for (;;) {
    const starting = (await deps.store.listSessions(snapshot.taskId)).filter((s) => s.state === "starting" && snapshot.sessionIds.includes(s.id));
    if (starting.length === 0 && deps.launches.count(snapshot.taskId) === 0) return;
    // An agent still in initialize/session/new is stopped now: its launch then fails at once
    // instead of holding the job until a start timeout.
    await Promise.all(starting.filter((s) => deps.agents.isStarting(s.id)).map((s) => deps.agents.stop(s.id, { graceMs: GRACE_MS })));
    if (Date.now() > deadline) {
      throw new AppError(
        "session_running",
        `session(s) of task ${snapshot.taskId} are still starting (${starting.map((s) => s.id).join(", ") || "a prompt or restore"}); worktrees kept`,
      );
    }
    await delay(50);
  }
}
