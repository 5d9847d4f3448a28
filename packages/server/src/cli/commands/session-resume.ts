import type { Command } from "commander";
import type { Session } from "@grove/protocol";
import { CliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";

/**
 * `grove session resume <sessionId>`: relaunches the session's agent in the same workspace
 * (recreating a vanished worktree, WT-5). Prints the session's real state; a resume that left
 * the session `failed` exits non-zero with its `lastError` (and the action that fixes it).
 */
export function registerSessionResumeCommand(session: Command): void {
  withCommonOptions(session.command("resume <sessionId>").description("resume the session (relaunch its agent in the same workspace)")).action(
    async (sessionId: string, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const s = await client.post<Session | undefined>(`/sessions/${encodeURIComponent(sessionId)}/resume`);
      const body = s ?? { ok: true, sessionId, action: "resume" };
      out.result(body, () => [s ? `session ${sessionId}: ${s.state}` : `resume requested for session ${sessionId}`]);
      if (s?.state === "failed") {
        const e = s.lastError;
        throw new CliError(e?.code ?? "session_failed", `${e?.message ?? `session ${sessionId} failed`}${e?.action ? `\naction: ${e.action}` : ""}`);
      }
    },
  );
}
