import type { Command } from "commander";
import { registerSessionPromptCommand } from "./session-prompt.js";
import type { Message, Session } from "@grove/protocol";
import { allInOrder } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { agentStderr, formatTable, shortTime } from "../output.js";
import { lastErrorWords, sessionStateWords, turnOutcomeWords } from "../output-words.js";
import { registerSessionResumeCommand } from "./session-resume.js";
import { describeAgentState, describeAsks, registerSessionAgentCommands } from "./session-agent.js";
import { followSession } from "./session-follow.js";
import { describeMessage } from "./session-messages.js";
import { turnFailure } from "./session-wait.js";

/** What a 202/204 answer without a body prints with `--json`, so stdout always holds one document. */
const accepted = (sessionId: string, action: string, body: unknown) => body ?? { ok: true, sessionId, action };

/** `grove session prompt|ls|cancel|resume|rm|show`. */
export function registerSessionCommands(program: Command): void {
  const session = program.command("session").description("talk to and inspect agent sessions");

  registerSessionPromptCommand(session);

  withCommonOptions(session.command("ls <taskId>").description("list a task's sessions")).action(async (taskId: string, _opts: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    // Without ?limit the answer is a plain array (the other shape of the response is a page).
    const sessions = (await client.call("listTaskSessions", { params: { id: taskId } })) as Session[];
    out.result(sessions, () =>
      sessions.length === 0
        ? [`no sessions (start one with \`grove task start ${taskId}\`)`]
        : formatTable(
            // SBX-3: an agent outside the sandbox is marked where its name is.
            sessions.map((x) => [
              x.id,
              x.sandbox === "unconfined" ? `${x.agent} (unconfined)` : x.agent,
              // CLI-17: states, outcomes and errors in the person's words; --json keeps the raw values.
              sessionStateWords(x.state),
              x.lastTurn ? turnOutcomeWords(x.lastTurn.outcome) : "",
              shortTime(x.updatedAt),
              lastErrorWords(x.lastError, x.lastTurn?.reason),
            ]),
            ["ID", "AGENT", "STATE", "LAST TURN", "UPDATED", "LAST ERROR"],
          ),
    );
  });

  withCommonOptions(session.command("cancel <sessionId>").description("cancel the running turn")).action(
    async (sessionId: string, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const body = await client.call("cancelSessionTurn", { params: { id: sessionId } });
      out.result(accepted(sessionId, "cancel", body), () => [`cancel requested for session ${sessionId}`]);
    },
  );

  registerSessionResumeCommand(session);
  registerSessionAgentCommands(session);

  withCommonOptions(session.command("rm <sessionId>").description("delete a session (refused while it runs)")).action(
    async (sessionId: string, _opts: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const body = await client.call("deleteSession", { params: { id: sessionId } });
      out.result(accepted(sessionId, "rm", body), () => [`removed session ${sessionId}`]);
    },
  );

  withCommonOptions(
    session
      .command("show <sessionId>")
      .description("show a session's state, last error and messages")
      .option("--follow", "then stream the running turn until it ends; exit 1 if it failed"),
  ).action(async (sessionId: string, opts: { follow?: boolean }, cmd: Command) => {
    const { client, out, token } = contextOf(cmd);
    if (opts.follow) {
      const followed = await followSession(client, out, token, sessionId);
      out.result(followed, () => []);
      const failure = await turnFailure(client, followed.session);
      if (failure) throw failure;
      return;
    }
    const id = { id: sessionId };
    const [s, messages, permissions] = await allInOrder<[Session, Message[], Parameters<typeof describeAsks>[0]]>([
      client.call("getSession", { params: id }),
      client.call("listSessionMessages", { params: id }) as Promise<Message[]>,
      // A server without the permissions route (an older one) still shows the session.
      client.call("listPermissionRequests", { params: id }).catch(() => []),
    ]);
    // The task's title says which task this is; one that cannot be read still shows its id.
    const task = out.json ? undefined : await client.call("getTask", { params: { id: s.taskId } }).catch(() => undefined);
    out.result({ session: s, messages, permissions }, () => [...describeSession(s, messages, task?.title), ...describeAsks(permissions)]);
  });
}

/** Human lines for `session show`: header, state, last error, then `role: text` per message (CLI-17: in words). */
export function describeSession(s: Session, messages: readonly Message[], taskTitle?: string): string[] {
  const lines = [
    `session ${s.id}  task ${s.taskId}${taskTitle ? ` ${JSON.stringify(taskTitle)}` : ""}  agent ${s.agent}  updated ${shortTime(s.updatedAt)}`,
    `state: ${sessionStateWords(s.state)}`,
    // SBX-3: an agent outside the sandbox is said so plainly; SBX-2: what the proxy refused.
    `sandbox: ${s.sandbox === "unconfined" ? "unconfined (the agent runs without Grove's OS sandbox)" : "confined"}${s.blockedConnections > 0 ? `, ${s.blockedConnections} connection(s) blocked` : ""}`,
    `last error: ${s.lastError ? lastErrorWords(s.lastError, s.lastTurn?.reason) : "none"}`,
    ...(s.lastError?.action ? [`fix: ${s.lastError.action}`] : []),
    // LIVE-2: how the latest turn ended, with the agent's reason.
    ...(s.lastTurn ? [`last turn: ${turnOutcomeWords(s.lastTurn.outcome)}${s.lastTurn.reason ? `: ${s.lastTurn.reason}` : ""}`] : []),
    ...(s.lastError?.stderr ? agentStderr(s.lastError.stderr).slice(1).split("\n") : []),
    ...describeAgentState(s),
  ];
  if (messages.length > 0) lines.push("");
  for (const m of messages) lines.push(...describeMessage(m));
  return lines;
}
