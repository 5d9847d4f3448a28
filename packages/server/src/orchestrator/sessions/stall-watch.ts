import type { SessionRecord } from "../../domain/records.js";
import type { LiveSessions } from "./live-sessions.js";
import type { SessionRecorder } from "./recorder.js";

/** The longest gap between two checks, so a long limit still notices progress stopping in time. */
const MAX_CHECK_MS = 5000;

/**
 * LIVE-3: calls `onStall` once when the turn has had no agent update for `stallAfterMs`. A tool
 * call the agent reported and has not closed counts as progress (a long build or test run), and
 * so does a permission question or an elicitation (MCP-3) waiting for the person: neither is the agent's silence. Returns
 * the function that stops watching (the turn ended).
 */
export function watchForStall(live: LiveSessions, session: SessionRecord, recorder: SessionRecorder, stallAfterMs: number, onStall: () => void): () => void {
  let busySince = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    const now = Date.now();
    const { lastUpdateAt, toolRunning } = recorder.progress();
    if (toolRunning || live.pendingAsks(session.id).length > 0 || live.waitingForPerson(session.id)) busySince = now;
    const quietFor = now - Math.max(lastUpdateAt, busySince);
    if (quietFor >= stallAfterMs) {
      timer = undefined;
      onStall();
      return;
    }
    arm(stallAfterMs - quietFor);
  };
  const arm = (ms: number): void => {
    timer = setTimeout(check, Math.max(10, Math.min(ms, MAX_CHECK_MS)));
    timer.unref();
  };
  arm(stallAfterMs);
  return () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
}
