import type { Session } from "@grove/protocol";
import type { GroveClient } from "../client.js";
import type { Output } from "../output.js";

/** Session states in which no turn is running: the end of a `--wait`. */
export const SETTLED_STATES: ReadonlySet<Session["state"]> = new Set(["waiting_for_input", "completed", "failed", "cancelled"]);

/**
 * Polls a session until it settles, reporting each state change on stderr. Polling (not the
 * WebSocket) keeps the CLI a plain HTTP client; a turn of the scripted agent settles in well
 * under a second, and people wait on real agents with Ctrl-C at hand.
 */
export async function waitForSession(client: GroveClient, out: Output, session: Session, intervalMs = 250): Promise<Session> {
  let current = session;
  while (!SETTLED_STATES.has(current.state)) {
    await new Promise((r) => setTimeout(r, intervalMs));
    const next = await client.get<Session>(`/sessions/${encodeURIComponent(current.id)}`);
    if (next.state !== current.state) out.progress(`session ${next.id}: ${next.state}`);
    current = next;
  }
  return current;
}
