import type { Command } from "commander";
import type { Session } from "@grove/protocol";
import { CliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { sessionStateWords } from "../output-words.js";

/**
 * `grove session resume|restart <sessionId>`: relaunches the session's agent in the same workspace
 * (recreating a vanished worktree, WT-5). Prints the session's real state; a resume that left
 * the session `failed` exits non-zero with its `lastError` (and the action that fixes it).
 */
export function registerSessionResumeCommand(session: Command): void {
  relaunchCommand(session, "resume", "resume the session (relaunch its agent in the same workspace)");
  // LIVE-3: out of a stalled turn: the agent is stopped and a new one loads the conversation.
  relaunchCommand(session, "restart", "restart the session's agent (stop it, resume the conversation with session/load in the same worktree)");
}

function relaunchCommand(session: Command, action: "resume" | "restart", description: string): void {
  withCommonOptions(session.command(`${action} <sessionId>`).description(description)).action(async (sessionId: string, _opts: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const s: Session | undefined = await client.call(action === "resume" ? "resumeSession" : "restartSession", { params: { id: sessionId } });
    const body = s ?? { ok: true, sessionId, action };
    out.result(body, () => [s ? `session ${sessionId}: ${sessionStateWords(s.state)}` : `${action} requested for session ${sessionId}`]);
    if (s?.state === "failed") {
      const e = s.lastError;
      throw new CliError(e?.code ?? "session_failed", `${e?.message ?? `session ${sessionId} failed`}${e?.action ? `\naction: ${e.action}` : ""}`);
    }
  });
}
