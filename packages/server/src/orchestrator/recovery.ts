import { newId } from "../domain/ids.js";
import { messageView, sessionView } from "../domain/views.js";
import { publishJob } from "./cleanup-events.js";
import { stopRunnerGroups } from "./agent-groups.js";
import type { Deps } from "./context.js";
import { refreshTaskState } from "./tasks.js";

/**
 * Start-up (FLOWS "Start-up", SES-6): interrupted sessions wait for input (a launch cut short
 * before its environment was ready fails), `creating` environments become retryable, and
 * the process groups of agents a crashed server left behind are stopped as a whole — verified
 * by the leader's pid and start time (agents/process-group.ts), so a recycled pid is never
 * hit. Nothing is relaunched.
 */
export async function recoverOnStartup(deps: Deps): Promise<void> {
  // AG-1: which turns the restart cut (read first: recovery moves them to waiting_for_input).
  const wasRunning = new Set(await deps.store.listSessionIdsInStates(["running"]));
  const changed = await deps.store.recoverAfterRestart(deps.runnerId, deps.now());
  for (const s of changed) deps.bus.publish("session.state_changed", { session: sessionView(s), from: null });
  // SEC-7: every recorded group of this runner, leader alive or not (an agent whose stdin
  // closed with the crash has exited; the tools it started have not).
  for (const s of changed.filter((x) => wasRunning.has(x.id))) await markInterruptedTurn(deps, s.id, s.taskId);
  const orphans = await stopRunnerGroups(deps, { graceMs: 3000, killWaitMs: 2000 });
  for (const taskId of new Set(changed.map((s) => s.taskId))) await refreshTaskState(deps, taskId);
  // LC-4: `running` jobs are due again; `prepared` ones activated or cancelled (FLOWS "Start-up" 2).
  for (const job of await deps.store.recoverCleanupJobs(deps.runnerId, deps.now())) publishJob(deps, job);
  if (changed.length > 0 || orphans > 0) deps.log.info({ sessions: changed.length, orphans }, "start-up recovery done");
}

/**
 * AG-1: a turn the server's restart cut: its open tool calls become `interrupted` and a
 * `system` message says what happened, so the transcript never shows a turn as still running.
 */
async function markInterruptedTurn(deps: Deps, sessionId: string, taskId: string): Promise<void> {
  for (const m of await deps.store.listMessages(sessionId)) {
    const data = m.data as { toolCallId?: string; status?: string } | null;
    if (m.role !== "tool" || !data?.toolCallId || !["pending", "in_progress"].includes(String(data.status ?? "pending"))) continue;
    const closed = { ...data, status: "interrupted" };
    await deps.store.updateMessage(m.id, { data: closed });
    deps.bus.publish("session.message", { sessionId, taskId, message: messageView({ ...m, data: closed }) });
  }
  const note = { id: newId("msg"), sessionId, role: "system" as const, text: "The server restarted during this turn; the turn was interrupted.", data: { interrupted: true }, createdAt: deps.now() };
  await deps.store.insertMessage(note);
  deps.bus.publish("session.message", { sessionId, taskId, message: messageView(note) });
}
