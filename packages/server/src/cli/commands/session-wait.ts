import type { Message, Session } from "@grove/protocol";
import { CliError, type GroveClient } from "../client.js";
import type { Output } from "../output.js";
import { sessionStateWords } from "../output-words.js";

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
    const next = await client.call("getSession", { params: { id: current.id } });
    if (next.state !== current.state) out.progress(`session ${next.id}: ${sessionStateWords(next.state)}`);
    current = next;
  }
  return current;
}

/** Stop reasons that mean the turn did not do what was asked (ACP `PromptResponse.stopReason`). */
const FAILED_STOP_REASONS = new Set(["refusal", "max_tokens", "max_turn_requests"]);

/** LIVE-2: turn outcomes that make `--wait` exit 1. */
const FAILED_OUTCOMES: ReadonlySet<string> = new Set(["refused", "failed", "max_tokens", "stalled"]);

/**
 * Why the session's latest turn failed, or undefined when it ended normally: the session itself
 * failed (its lastError), or its `lastTurn.outcome` is a failure (LIVE-2). A server older than
 * `lastTurn` records a failing stop reason as a system message carrying `data.stopReason` after
 * the turn's user message; that is read instead.
 */
export async function turnFailure(client: GroveClient, session: Session): Promise<CliError | undefined> {
  if (session.state === "failed") {
    return new CliError(session.lastError?.code ?? "session_failed", session.lastError?.message ?? `session ${session.id} failed`);
  }
  if (session.lastTurn !== undefined) {
    const t = session.lastTurn;
    if (!t || !FAILED_OUTCOMES.has(t.outcome)) return undefined;
    return new CliError("turn_failed", `the turn of session ${session.id} ended with ${t.stopReason ?? t.outcome}${t.reason ? `: ${t.reason}` : ""}`, {
      details: { outcome: t.outcome, ...(t.stopReason ? { stopReason: t.stopReason } : {}), ...(t.reason ? { reason: t.reason } : {}) },
    });
  }
  const messages = (await client.call("listSessionMessages", { params: { id: session.id } })) as Message[];
  const lastUser = messages.map((m) => m.role).lastIndexOf("user");
  for (const m of messages.slice(lastUser + 1)) {
    const reason = (m.data as { stopReason?: unknown } | undefined)?.stopReason;
    if (m.role === "system" && typeof reason === "string" && FAILED_STOP_REASONS.has(reason)) {
      const said = messages
        .slice(lastUser + 1)
        .filter((x) => x.role === "agent")
        .map((x) => x.text)
        .join("")
        .trim();
      return new CliError("turn_failed", `the turn of session ${session.id} ended with ${reason}${said ? `: ${said}` : ""}`, {
        details: { stopReason: reason },
      });
    }
  }
  return undefined;
}
