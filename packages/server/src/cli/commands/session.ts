import type { Command } from "commander";
import type { Message, Session } from "@grove/protocol";
import { contextOf, withCommonOptions } from "../context.js";
import { shortTime } from "../output.js";
import { describeAgentState, describeAsks, describeTool } from "./session-agent.js";

/** What a 202/204 answer without a body prints with `--json`, so stdout always holds one document. */
const accepted = (sessionId: string, action: string, body: unknown) => body ?? { ok: true, sessionId, action };

/** `grove session prompt|cancel|resume|rm|show`. */
export function registerSessionCommands(program: Command): void {
  const session = program.command("session").description("talk to and inspect agent sessions");

  withCommonOptions(session.command("prompt <sessionId> <text>").description("send a prompt (409 session_busy while a turn runs)")).action(
    async (sessionId: string, text: string, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const body = await client.post<unknown>(`/sessions/${encodeURIComponent(sessionId)}/prompt`, { prompt: text });
      out.result(accepted(sessionId, "prompt", body), () => [`prompt sent to session ${sessionId}`]);
    },
  );

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
      const [s, messages, permissions] = await Promise.all([
        client.get<Session>(`/sessions/${id}`),
        client.get<Message[]>(`/sessions/${id}/messages`),
        // A server without AG-2 (or a stub) still shows the session.
        client.get<Parameters<typeof describeAsks>[0]>(`/sessions/${id}/permissions`).catch(() => []),
      ]);
      out.result({ session: s, messages, permissions }, () => [...describeSession(s, messages), ...describeAsks(permissions)]);
    },
  );
}

/** Human lines for `session show`: header, state, lastError, then `role: text` per message. */
export function describeSession(s: Session, messages: readonly Message[]): string[] {
  const lines = [
    `session ${s.id}  task ${s.taskId}  agent ${s.agent}  updated ${shortTime(s.updatedAt)}`,
    `state: ${s.state}`,
    `lastError: ${s.lastError ? `${s.lastError.code}: ${s.lastError.message}` : "none"}`,
    ...describeAgentState(s),
  ];
  if (messages.length > 0) lines.push("");
  for (const m of messages) {
    // Continuation lines are indented under the text so each message stays one visual block.
    const prefix = `${m.role}: `;
    if (m.role === "tool") {
      lines.push(describeTool(m));
      continue;
    }
    const [first = "", ...rest] = m.text.replace(/\n+$/, "").split("\n");
    lines.push(prefix + first, ...rest.map((line) => " ".repeat(prefix.length) + line));
  }
  return lines;
}
