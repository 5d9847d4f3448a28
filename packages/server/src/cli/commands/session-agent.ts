import type { Command } from "commander";
import type { AgentProfile, Message, Session } from "@grove/protocol";
import { CliError } from "../client.js";
import { contextOf, withCommonOptions } from "../context.js";
import { budgetWords, registerAgentBudgetCommand } from "./agents-budget.js";

/** A pending permission request as `GET /sessions/:id/permissions` returns it. */
interface PendingAsk {
  requestId: string;
  title: string;
  toolCallId?: string;
  toolKind?: string;
  options: { optionId: string; name: string; kind: string }[];
}

/** `allow|always|reject` → the option kinds that answer it, best first (option ids differ by agent). */
const ANSWERS: Record<string, string[]> = {
  allow: ["allow_once", "allow_always"],
  always: ["allow_always"],
  reject: ["reject_once", "reject_always"],
};

/** The option of `ask` that `answer` (allow|always|reject) selects, by kind, never by id. */
export function optionFor(ask: PendingAsk, answer: string): string {
  const kinds = ANSWERS[answer];
  if (!kinds) throw new CliError("invalid_arguments", `answer must be allow, always or reject, not ${JSON.stringify(answer)}`);
  for (const k of kinds) {
    const o = ask.options.find((x) => x.kind === k);
    if (o) return o.optionId;
  }
  throw new CliError("invalid_arguments", `request ${ask.requestId} offers no ${answer} option (${ask.options.map((o) => o.kind).join(", ")})`);
}

/** Human lines for pending permission requests (`session permissions`, `session show`). */
export function describeAsks(asks: readonly PendingAsk[]): string[] {
  return asks.map((a) => `permission ${a.requestId}: ${a.title}${a.toolKind ? ` [${a.toolKind}]` : ""} (answer: allow|always|reject)`);
}

/** Human line of a tool message with its status (`session show`). */
export function describeTool(m: Message): string {
  const status = (m.data as { status?: string } | undefined)?.status ?? "pending";
  return `tool [${status}]: ${m.text}`;
}

/** Human lines for the agent's mode and model (`session show`, `session mode`). */
export function describeAgentState(s: Session): string[] {
  const lines: string[] = [];
  if (s.modes) lines.push(`mode: ${s.modes.currentModeId} (offers ${s.modes.availableModes.map((m) => m.id).join(", ")})`);
  if (s.models) lines.push(`model: ${s.models.currentModelId} (offers ${s.models.availableModels.map((m) => m.modelId).join(", ")})`);
  return lines;
}

/**
 * AG-2/AG-3 CLI parity (CONTRACT "CLI: grove"): `session permissions|answer|mode|model` and
 * `agents [ls]|install|check`.
 */
export function registerSessionAgentCommands(session: Command): void {
  withCommonOptions(session.command("permissions <sessionId>").description("pending permission requests (policy ask)")).action(
    async (sessionId: string, _o: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const asks = await client.call("listPermissionRequests", { params: { id: sessionId } });
      out.result(asks, () => (asks.length ? describeAsks(asks) : ["no pending permission requests"]));
    },
  );

  withCommonOptions(session.command("answer <sessionId> <requestId> <answer>").description("answer a permission request: allow, always or reject")).action(
    async (sessionId: string, requestId: string, answer: string, _o: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const asks = await client.call("listPermissionRequests", { params: { id: sessionId } });
      const ask = asks.find((a) => a.requestId === requestId);
      if (!ask) throw new CliError("not_found", `no pending permission request ${requestId}`);
      const optionId = optionFor(ask, answer);
      await client.call("answerPermissionRequest", { params: { id: sessionId, requestId }, body: { optionId } });
      out.result({ ok: true, sessionId, requestId, optionId }, () => [`answered ${requestId}: ${answer} (${optionId})`]);
    },
  );

  for (const what of ["mode", "model"] as const) {
    withCommonOptions(session.command(`${what} <sessionId> <${what}>`).description(`switch the agent's ${what}`)).action(
      async (sessionId: string, value: string, _o: unknown, cmd: Command) => {
        const { client, out } = contextOf(cmd);
        const s =
          what === "mode"
            ? await client.call("setSessionMode", { params: { id: sessionId }, body: { modeId: value } })
            : await client.call("setSessionModel", { params: { id: sessionId }, body: { modelId: value } });
        out.result(s, () => describeAgentState(s));
      },
    );
  }
}

/** `grove agents [ls]|install|check|budget` (AG-3, USE-2). */
export function registerAgentsCommand(program: Command): void {
  const agents = withCommonOptions(program.command("agents").description("agent profiles: availability, install, check"));
  const ls = async (_o: unknown, cmd: Command) => {
    const { client, out } = contextOf(cmd);
    const list = await client.call("listAgentProfiles");
    out.result(list, () =>
      list.flatMap((a) => [
        `${a.name.padEnd(10)} ${a.available === false ? "unavailable" : "available  "} ${a.version ?? ""}${a.sandbox === "off" ? "  unconfined (sandbox off)" : ""}${capWords(a)}${a.problem ? `  (${a.problem})` : ""}`,
        ...(a.askProblem ? [`  warning: ${a.askProblem}`] : []),
      ]),
    );
  };
  agents.action(ls);
  withCommonOptions(agents.command("ls").description("list agent profiles")).action(ls);
  registerAgentBudgetCommand(agents);
  for (const [verb, description] of [
    ["install", "install the pinned bridge into GROVE_HOME/agents (npm; idempotent)"],
    ["check", "start the agent for `initialize` only: version and auth methods"],
  ] as const) {
    withCommonOptions(agents.command(`${verb} <name>`).description(description)).action(async (name: string, _o: unknown, cmd: Command) => {
      const { client, out } = contextOf(cmd);
      const a: AgentProfile & { startMs?: number } = await client.call(verb === "install" ? "installAgent" : "checkAgent", { params: { name } });
      const auth = a.authMethods?.length ? `  auth: ${a.authMethods.map((m) => m.name).join(", ")}` : "";
      out.result(a, () => [
        `${a.name} ${a.available ? "available" : "unavailable"} ${a.version ?? ""}${auth}${a.startMs !== undefined ? `  (initialize in ${a.startMs} ms)` : ""}`,
        // AG-2: an "ask" profile whose agent would not ask is flagged, whatever else is fine.
        ...(a.askProblem ? [`warning: ${a.askProblem}`] : []),
      ]);
    });
  }
}

/** USE-2: an agent profile's daily cap on its `agents ls` line, when it has one. */
function capWords(a: AgentProfile): string {
  const cap = a.budget ? budgetWords(a.budget.budget) : "";
  return cap ? `  daily cap: ${cap}` : "";
}
