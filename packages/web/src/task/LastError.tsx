/**
 * A session's last error said once, in words (WEB-24): a failed turn as its outcome and the
 * agent's reason ("Turn refused: …"), anything else in the words of `api/human-errors.ts`; the
 * raw `code: message` waits behind a closed Details toggle (bug reports), with the agent's stderr
 * when it failed to start (AG-3).
 */
import type { Session } from "@grove/protocol";
import { ApiError } from "../api/client.js";
import { humanError } from "../api/human-errors.js";
import { outcomeWords } from "../ui/words.js";

type LastErrorOf = NonNullable<Session["lastError"]>;

/** The words of a session's last error. */
export function lastErrorWords(e: LastErrorOf, lastTurn: Session["lastTurn"]): string {
  if (e.code.startsWith("turn_")) {
    // A stalled turn's message carries the way out (cancel or restart); a refusal's reason is the agent's own words.
    const reason = e.code === "turn_stalled" ? e.message : (lastTurn?.reason ?? e.message);
    return `${outcomeWords(e.code.slice("turn_".length))}: ${reason}`;
  }
  return humanError(new ApiError(0, e.code, e.message)).text;
}

/** A short name of a failed turn for the session list (the panel says the rest); nothing for other errors. */
export function lastErrorLabel(e: LastErrorOf | null): string | null {
  return e?.code.startsWith("turn_") ? outcomeWords(e.code.slice("turn_".length)) : null;
}

export function LastError({ session }: { session: Session }) {
  const e = session.lastError;
  if (!e) return null;
  return (
    <div className="last-error-block">
      <p className="error last-error" role="alert" data-error-code={e.code}>
        {lastErrorWords(e, session.lastTurn)}
      </p>
      <details className="error-details">
        <summary>Details</summary>
        <code className="error-raw">{`${e.code}: ${e.message}`}</code>
      </details>
      {e.stderr ? (
        // AG-3: what the agent itself said when it failed to start or authenticate.
        <details className="agent-stderr">
          <summary>Agent output (stderr)</summary>
          <pre>{e.stderr}</pre>
        </details>
      ) : null}
    </div>
  );
}
