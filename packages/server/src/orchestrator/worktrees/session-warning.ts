import { newId } from "../../domain/ids.js";
import type { MessageRecord } from "../../domain/records.js";
import { messageView } from "../../domain/views.js";
import type { Deps } from "../context.js";
import type { RefreshContext } from "../planned-slot.js";

/**
 * A warning about a worktree step (setup script, copy-files, saved work) as a system message on
 * the launching session, or in the log when there is no session. A warning that cannot be stored
 * never fails the launch: the log keeps it. `what` names the step in the log lines.
 */
export async function warnOnSession(
  deps: Pick<Deps, "store" | "bus" | "log" | "now">,
  ctx: RefreshContext | undefined,
  text: string,
  data: Record<string, unknown>,
  what: string,
): Promise<void> {
  if (!ctx?.sessionId) {
    deps.log.warn({ taskId: ctx?.taskId, text, ...data }, `${what} without a session`);
    return;
  }
  const m: MessageRecord = { id: newId("msg"), sessionId: ctx.sessionId, role: "system", text, data: { warning: true, ...data }, createdAt: deps.now() };
  try {
    await deps.store.insertMessage(m);
    deps.bus.publish("session.message", { sessionId: ctx.sessionId, taskId: ctx.taskId, message: messageView(m) });
  } catch (err) {
    deps.log.warn({ err, sessionId: ctx.sessionId, text }, `could not record a ${what}`);
  }
}
