import type { EventMap } from "@grove/protocol";
import { newId } from "../../domain/ids.js";
import type { SessionRecord } from "../../domain/records.js";
import { messageView, sessionView } from "../../domain/views.js";
import { publishJob } from "../lifecycle/cleanup-events.js";
import { stopRunnerGroups } from "../lifecycle/agent-groups.js";
import type { Deps } from "../context.js";
import { refreshTaskState } from "../tasks/tasks.js";

/**
 * Start-up (FLOWS "Start-up", SES-6): interrupted sessions wait for input (a launch cut short
 * before its environment was ready fails), `creating` environments become retryable, and
 * the process groups of agents a crashed server left behind are stopped as a whole — verified
 * by the leader's pid and start time (agents/process-group.ts), so a recycled pid is never
 * hit. Nothing is relaunched.
 */
export async function recoverOnStartup(deps: Pick<Deps, "store" | "bus" | "log" | "runnerId" | "now">): Promise<void> {
  await recoverAfterListening(deps, await recoverBeforeListening(deps));
}

/**
 * The part of start-up recovery a request depends on, run before the server listens:
 * live session states reset in one transaction (a prompt must not find a `running` session
 * nobody runs), turns the restart cut marked (AG-1), orphaned agent process groups stopped
 * (SEC-7: they must not write into a workspace a new agent is about to use), cleanup jobs
 * recovered. Returns the sessions whose state changed.
 */
export async function recoverBeforeListening(deps: Pick<Deps, "store" | "bus" | "log" | "runnerId" | "now">): Promise<SessionRecord[]> {
  // AG-1: which turns the restart cut (read first: recovery moves them to waiting_for_input).
  const wasRunning = new Set(await deps.store.listSessionIdsInStates(["running"]));
  const changed = await deps.store.recoverAfterRestart(deps.runnerId, deps.now());
  for (const s of changed) deps.bus.publish("session.state_changed", { session: sessionView(s), from: null });
  // One transaction (one commit) for every interrupted turn, not one per message; the frames go
  // out once it committed.
  const interrupted = changed.filter((x) => wasRunning.has(x.id));
  const frames =
    interrupted.length === 0
      ? []
      : await deps.store.transaction(async () => {
          const out: EventMap["session.message"][] = [];
          for (const s of interrupted) out.push(...(await markInterruptedTurn(deps, s.id, s.taskId)));
          return out;
        });
  for (const f of frames) deps.bus.publish("session.message", f);
  // LIVE-4: a permission question of a turn the restart cut can no longer be answered.
  for (const s of interrupted)
    for (const item of await deps.store.inbox.resolveOf({ sessionId: s.id }, ["permission"], deps.now())) deps.bus.publish("inbox.updated", { item });
  // SEC-7: every recorded group of this runner, leader alive or not (an agent whose stdin
  // closed with the crash has exited; the tools it started have not).
  const orphans = await stopRunnerGroups(deps, { graceMs: 3000, killWaitMs: 2000 });
  // LC-4: `running` jobs are due again; `prepared` ones activated or cancelled (FLOWS "Start-up" 2).
  // One transaction over this runner's unfinished jobs: it does not grow with history, and a
  // request must not see a job the crash left `prepared`.
  for (const job of await deps.store.recoverCleanupJobs(deps.runnerId, deps.now())) publishJob(deps, job);
  if (changed.length > 0 || orphans > 0) deps.log.info({ sessions: changed.length, orphans }, "start-up recovery done");
  return changed;
}

/**
 * What may run once the server listens: task states re-derived from the recovered sessions (a
 * query and a compare-and-set per task, growing with the sessions to recover). A request
 * meanwhile sees the previous task state for a moment.
 */
export async function recoverAfterListening(deps: Pick<Deps, "store" | "bus" | "now">, changed: readonly SessionRecord[]): Promise<void> {
  for (const taskId of new Set(changed.map((s) => s.taskId))) await refreshTaskState(deps, taskId);
}

/**
 * AG-1: a turn the server's restart cut: its open tool calls become `interrupted` and a
 * `system` message says what happened, so the transcript never shows a turn as still running.
 */
async function markInterruptedTurn(deps: Pick<Deps, "store" | "now">, sessionId: string, taskId: string): Promise<EventMap["session.message"][]> {
  const frames: EventMap["session.message"][] = [];
  for (const m of await deps.store.listToolMessages(sessionId)) {
    const data = m.data as { toolCallId?: string; status?: string } | null;
    if (m.role !== "tool" || !data?.toolCallId || !["pending", "in_progress"].includes(String(data.status ?? "pending"))) continue;
    const closed = { ...data, status: "interrupted" };
    await deps.store.updateMessage(m.id, { data: closed });
    frames.push({ sessionId, taskId, message: messageView({ ...m, data: closed }) });
  }
  const note = {
    id: newId("msg"),
    sessionId,
    role: "system" as const,
    text: "The server restarted during this turn; the turn was interrupted.",
    data: { interrupted: true },
    createdAt: deps.now(),
  };
  await deps.store.insertMessage(note);
  frames.push({ sessionId, taskId, message: messageView(note) });
  return frames;
}
