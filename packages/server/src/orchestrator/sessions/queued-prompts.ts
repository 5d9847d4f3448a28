/**
 * WEB-37: follow-ups queued while a turn runs. `POST /sessions/:id/prompt {prompt, queue: true}`
 * appends to the session's queue by compare-and-set on its state (`starting`/`running`); a
 * session that waits takes the prompt at once instead. When a turn ends with the session waiting
 * for input, the oldest queued prompt leaves the queue as it is claimed and is sent as the next
 * turn; a prompt that cannot be sent (a budget, a failed session) goes back to the front of the
 * queue, visible, for the person to send or drop.
 */
import { AppError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import type { SessionRecord, SessionState } from "../../domain/records.js";
import { faultPoint } from "../fault-points.js";
import { sessionView } from "../../domain/views.js";
import type { Deps, SessionPorts } from "../context.js";
import type { LiveSessions } from "./live-sessions.js";
import { getSessionOr404, promptSession } from "./session-ops.js";

const TURN_RUNS: readonly SessionState[] = ["starting", "running"];

function published(deps: Pick<Deps, "bus">, s: SessionRecord | undefined): SessionRecord | undefined {
  if (s) deps.bus.publish("session.updated", { session: sessionView(s) });
  return s;
}

/** Queues `text` behind the running turn, or sends it now when the session waits for input. */
export async function queuePrompt(deps: SessionPorts, live: LiveSessions, id: string, text: string): Promise<SessionRecord> {
  await getSessionOr404(deps, id);
  // The turn may end between the two tries: queue → it ended → send → a queued prompt already
  // started the next turn → queue again.
  for (let attempt = 0; attempt < 5; attempt++) {
    const entry = { id: newId("qp"), text, createdAt: deps.now() };
    const queued = published(deps, await deps.store.changeQueuedPrompts(id, (q) => [...q, entry], deps.now(), TURN_RUNS));
    if (queued) return queued;
    try {
      return await promptSession(deps, live, id, text);
    } catch (e) {
      if (!(e instanceof AppError && e.code === "session_busy")) throw e;
    }
  }
  throw new AppError("session_busy", `session ${id} keeps changing state; try again`);
}

/** `DELETE /sessions/:id/queued/:queuedId`: the person takes a queued follow-up back. */
export async function dropQueuedPrompt(deps: Pick<Deps, "store" | "bus" | "now">, id: string, queuedId: string): Promise<SessionRecord> {
  const session = await getSessionOr404(deps, id);
  if (!session.queued?.some((q) => q.id === queuedId)) throw new AppError("not_found", `queued prompt ${queuedId} not found`, { id: queuedId });
  const dropped = await deps.store.changeQueuedPrompts(
    id,
    (q) => (q.some((x) => x.id === queuedId) ? q.filter((x) => x.id !== queuedId) : undefined),
    deps.now(),
  );
  if (!dropped) throw new AppError("not_found", `queued prompt ${queuedId} not found`, { id: queuedId });
  return published(deps, dropped)!;
}

/**
 * After a turn ended and the session waits: the oldest queued prompt becomes the next turn. It is
 * claimed by taking it out of the queue (compare-and-set on the entry, while the session waits)
 * before it is sent: the turn it starts may end, and call this again, before any bookkeeping
 * after the send has run, and must find it gone rather than send it twice.
 */
export async function sendQueuedPrompt(deps: SessionPorts, live: LiveSessions, id: string): Promise<void> {
  const session = await deps.store.getSession(id);
  const next = session?.state === "waiting_for_input" ? session.queued?.[0] : undefined;
  if (!next) return;
  const claimed = await deps.store.changeQueuedPrompts(id, (q) => (q[0]?.id === next.id ? q.slice(1) : undefined), deps.now(), ["waiting_for_input"]);
  if (!claimed) return;
  published(deps, claimed);
  try {
    await promptSession(deps, live, id, next.text);
  } catch (err) {
    // Not sent (a budget, a failed session): back at the front of the queue, where the page
    // shows it for the person to send or drop.
    deps.log.warn({ err, sessionId: id }, "a queued prompt was not sent");
    published(deps, await deps.store.changeQueuedPrompts(id, (q) => [next, ...q], deps.now()));
    return;
  }
  await faultPoint("queue.after_send");
}
