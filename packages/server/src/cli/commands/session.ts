import type { Command } from "commander";
import { registerSessionPromptCommand } from "./session-prompt.js";
import type { Message, Session } from "@grove/protocol";
import { contextOf, withCommonOptions } from "../context.js";
import { shortTime } from "../output.js";

/** What a 202/204 answer without a body prints with `--json`, so stdout always holds one document. */
const accepted = (sessionId: string, action: string, body: unknown) => body ?? { ok: true, sessionId, action };

/** `grove session prompt|cancel|resume|rm|show`. */
export function registerSessionCommands(program: Command): void {
  const session = program.command("session").description("talk to and inspect agent sessions");

  registerSessionPromptCommand(session);

  for (const [action, description, done] of [
    ["cancel", "cancel the running turn", "cancel requested for"],
    ["resume", "resume the session (relaunch its agent in the same workspace)", "resume requested for"],
  ] as const) {
    withCommonOptions(session.command(`${action} <sessionId>`).description(description)).action(
      async (sessionId: string, _opts: unknown, cmd: Command) => {
        const { client, out } = contextOf(cmd);
        const body = await client.post<unknown>(`/sessions/${encodeURIComponent(sessionId)}/${action}`);
        out.result(accepted(sessionId, action, body), () => [`${done} session ${sessionId}`]);
      },
    );
  }

  withCommonOptions(session.command("rm <sessionId>").description("delete a session (refused while it runs)")).action(
    async (sessionId: string, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const body = await client.delete<unknown>(`/sessions/${encodeURIComponent(sessionId)}`);
      out.result(accepted(sessionId, "rm", body), () => [`removed session ${sessionId}`]);
    },
  );

  withCommonOptions(session.command("show <sessionId>").description("show a session's state, last error and messages")).action(
    async (sessionId: string, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const id = encodeURIComponent(sessionId);
      const [s, messages] = await Promise.all([client.get<Session>(`/sessions/${id}`), client.get<Message[]>(`/sessions/${id}/messages`)]);
      out.result({ session: s, messages }, () => describeSession(s, messages));
    },
  );
}

/** Human lines for `session show`: header, state, lastError, then `role: text` per message. */
export function describeSession(s: Session, messages: readonly Message[]): string[] {
  const lines = [
    `session ${s.id}  task ${s.taskId}  agent ${s.agent}  updated ${shortTime(s.updatedAt)}`,
    `state: ${s.state}`,
    `lastError: ${s.lastError ? `${s.lastError.code}: ${s.lastError.message}` : "none"}`,
  ];
  if (messages.length > 0) lines.push("");
  for (const m of messages) {
    // Continuation lines are indented under the text so each message stays one visual block.
    const prefix = `${m.role}: `;
    const [first = "", ...rest] = m.text.replace(/\n+$/, "").split("\n");
    lines.push(prefix + first, ...rest.map((line) => " ".repeat(prefix.length) + line));
  }
  return lines;
}
