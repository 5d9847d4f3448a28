import { isSameProcess, killProcessGroup } from "../agents/process-info.js";
import { newId } from "../domain/ids.js";
import { messageView, sessionView } from "../domain/views.js";
import { publishJob } from "./cleanup-events.js";
import type { Deps } from "./context.js";
import { refreshTaskState } from "./tasks.js";

/**
 * Start-up (FLOWS "Start-up", SES-6): interrupted sessions wait for input (a launch cut short
 * before its environment was ready fails), `creating` environments become retryable, and
 * agent processes a crashed server left behind are stopped — only when pid *and* start time
 * match, so a recycled pid is never killed. Nothing is relaunched.
 */
export async function recoverOnStartup(deps: Deps): Promise<void> {
  // AG-1: which turns the restart cut (read first: recovery moves them to waiting_for_input).
  const wasRunning = new Set(await deps.store.listSessionIdsInStates(["running"]));
  const changed = await deps.store.recoverAfterRestart(deps.runnerId, deps.now());
  for (const s of changed) deps.bus.publish("session.state_changed", { session: sessionView(s), from: null });
  for (const s of changed.filter((x) => wasRunning.has(x.id))) await markInterruptedTurn(deps, s.id, s.taskId);
  const orphans = await deps.store.listAgentProcesses(deps.runnerId);
  await Promise.all(
    orphans.map(async (p) => {
      if (isSameProcess(p.pid, p.startTime)) {
        deps.log.warn({ agentPid: p.pid, sessionId: p.sessionId }, "stopping an agent process left by a previous server");
        killProcessGroup(p.pid, "SIGTERM");
        const deadline = Date.now() + 3000;
        while (isSameProcess(p.pid, p.startTime) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        if (isSameProcess(p.pid, p.startTime)) killProcessGroup(p.pid, "SIGKILL");
      }
      await deps.store.deleteAgentProcess(p.sessionId);
    }),
  );
  for (const taskId of new Set(changed.map((s) => s.taskId))) await refreshTaskState(deps, taskId);
  // LC-4: `running` jobs are due again; `prepared` ones activated or cancelled (FLOWS "Start-up" 2).
  for (const job of await deps.store.recoverCleanupJobs(deps.runnerId, deps.now())) publishJob(deps, job);
  if (changed.length > 0 || orphans.length > 0) deps.log.info({ sessions: changed.length, orphans: orphans.length }, "start-up recovery done");
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
