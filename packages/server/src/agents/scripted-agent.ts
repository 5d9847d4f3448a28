/**
 * The scripted agent (SES-9): a real ACP agent program whose prompt is a tiny script (see
 * docs/specs/agents.md "SES-9" and the README's "The scripted agent"). Started by the server like any other
 * agent: `node --import <tsx loader> scripted-agent.ts`, cwd = the session's workspace, ACP on
 * stdin/stdout. stdout is the wire: diagnostics go to stderr only. Exits when stdin closes.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { isAbsolute } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { readScriptedState, scriptedStateDir, writeScriptedState, type ScriptedSessionState } from "./scripted-agent-state.js";
import { runScript } from "./scripted-agent-turn.js";
import { ScriptedMcpClients } from "./scripted-agent-mcp.js";

interface LiveSession {
  state: ScriptedSessionState;
  /** cwd of this process's session/new or session/load: where the script's paths resolve. */
  cwd: string;
  turn?: AbortController;
  /** AG-2: per process, so a load starts in `auto` again and the client must re-apply its mode. */
  mode: string;
  model: string;
  /** MCP-1: the MCP servers of this process's session/new or session/load. */
  mcpServers: acp.McpServer[];
  /** USE-1: tokens the `usage` command put into this process's context so far (`usage_update.used`). */
  contextTokens?: number;
}

/** USE-1: the context window the scripted agent reports in `usage_update.size`. */
const CONTEXT_WINDOW = 200_000;

// AG-2: the scripted agent's modes (`ask` asks before every file change) and models.
const MODES: acp.SessionMode[] = [
  { id: "auto", name: "Auto", description: "Runs every command without asking" },
  { id: "ask", name: "Ask", description: "Asks before every file change" },
];
const MODELS = [
  { value: "scripted-small", name: "Scripted small" },
  { value: "scripted-large", name: "Scripted large" },
];

function setupOf(s: LiveSession): { modes: acp.SessionModeState; configOptions: acp.SessionConfigOption[] } {
  return {
    modes: { currentModeId: s.mode, availableModes: MODES },
    configOptions: [{ id: "model", name: "Model", category: "model", type: "select", currentValue: s.model, options: MODELS }],
  };
}

const live = new Map<string, LiveSession>();
/** MCP-3: whether the client advertised form elicitation in `initialize` (the `elicit` command needs it). */
let clientElicitsForms = false;
const mcpClients = new ScriptedMcpClients();
const stateDir = scriptedStateDir();

function log(...args: unknown[]): void {
  console.error("[scripted-agent]", ...args);
}

function checkCwd(cwd: string): void {
  if (!isAbsolute(cwd) || !existsSync(cwd)) throw acp.RequestError.invalidParams({ cwd }, `cwd must be an existing absolute directory: ${cwd}`);
}

const PERMISSION_OPTIONS: acp.PermissionOption[] = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

const app = acp
  .agent({ name: "grove-scripted" })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    clientElicitsForms = params.clientCapabilities?.elicitation?.form !== undefined && params.clientCapabilities?.elicitation?.form !== null;
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentInfo: { name: "grove-scripted", version: "1.0.0" },
      agentCapabilities: { loadSession: true },
      authMethods: [],
    };
  })
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    checkCwd(params.cwd);
    const state: ScriptedSessionState = { sessionId: `scripted-${randomUUID()}`, cwd: params.cwd, createdAt: new Date().toISOString(), history: [], loads: [] };
    writeScriptedState(state, stateDir);
    const s: LiveSession = { state, cwd: params.cwd, mode: "auto", model: "scripted-small", mcpServers: params.mcpServers ?? [] };
    live.set(state.sessionId, s);
    log("session/new", state.sessionId, params.cwd);
    return { sessionId: state.sessionId, ...setupOf(s) };
  })
  .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
    const state = readScriptedState(params.sessionId, stateDir);
    if (!state) throw acp.RequestError.resourceNotFound(params.sessionId);
    checkCwd(params.cwd);
    state.loads.push({ cwd: params.cwd, at: new Date().toISOString() });
    writeScriptedState(state, stateDir);
    // ACP: the whole history is replayed as session/update notifications before the response.
    for (const update of state.history) await client.notify(acp.methods.client.session.update, { sessionId: state.sessionId, update });
    const s: LiveSession = { state, cwd: params.cwd, mode: "auto", model: "scripted-small", mcpServers: params.mcpServers ?? [] };
    await mcpClients.forget(state.sessionId);
    live.set(state.sessionId, s);
    log("session/load", state.sessionId, params.cwd, `${state.history.length} updates replayed`);
    return setupOf(s);
  })
  .onRequest(acp.methods.agent.session.setMode, async ({ params, client }) => {
    const s = live.get(params.sessionId);
    if (!s) throw acp.RequestError.sessionNotFound(params.sessionId);
    if (!MODES.some((m) => m.id === params.modeId)) throw acp.RequestError.invalidParams({ modeId: params.modeId }, `unknown mode ${params.modeId}`);
    s.mode = params.modeId;
    await client.notify(acp.methods.client.session.update, {
      sessionId: params.sessionId,
      update: { sessionUpdate: "current_mode_update", currentModeId: s.mode },
    });
    log("session/set_mode", params.sessionId, s.mode);
    return {};
  })
  .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) => {
    const s = live.get(params.sessionId);
    if (!s) throw acp.RequestError.sessionNotFound(params.sessionId);
    const value = (params as { value?: unknown }).value;
    if (params.configId !== "model" || !MODELS.some((m) => m.value === value))
      throw acp.RequestError.invalidParams({ configId: params.configId }, "unknown option or value");
    s.model = String(value);
    return { configOptions: setupOf(s).configOptions };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client, signal }) => {
    const s = live.get(params.sessionId);
    if (!s) throw acp.RequestError.sessionNotFound(params.sessionId);
    if (s.turn) throw acp.RequestError.invalidRequest({ sessionId: params.sessionId }, "a prompt turn is already running");
    const turn = new AbortController();
    s.turn = turn;
    const abortTurn = () => turn.abort();
    signal.addEventListener("abort", abortTurn, { once: true });
    const text = params.prompt.map((b) => (b.type === "text" ? b.text : "")).join("\n");
    // The prompt is history (replayed on load) but not echoed live: the client already has it.
    s.state.history.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
    writeScriptedState(s.state, stateDir);
    const turnUsage = { inputTokens: 0, outputTokens: 0 };
    try {
      const send = async (update: acp.SessionUpdate) => {
        s.state.history.push(update);
        writeScriptedState(s.state, stateDir);
        await client.notify(acp.methods.client.session.update, { sessionId: params.sessionId, update });
      };
      const stopReason = await runScript(
        {
          cwd: s.cwd,
          signal: turn.signal,
          send,
          askPermission: async (toolCallId, title, kind = "other") => {
            try {
              const res = await client.request(
                acp.methods.client.session.requestPermission,
                { sessionId: params.sessionId, toolCall: { toolCallId, title, kind, status: "pending" }, options: PERMISSION_OPTIONS },
                { cancellationSignal: turn.signal, stopWaitingOnCancel: true },
              );
              if (res.outcome.outcome !== "selected") return "cancelled";
              const chosen = res.outcome.optionId;
              const option = PERMISSION_OPTIONS.find((o) => o.optionId === chosen);
              return option?.kind.startsWith("allow") ? "allowed" : "rejected";
            } catch (e) {
              if (turn.signal.aborted) return "cancelled";
              throw e;
            }
          },
          exit: (code) => {
            log("crash", code);
            process.exit(code);
          },
          mode: () => s.mode,
          model: () => s.model,
          mcp: (tool, args) => mcpClients.call(params.sessionId, s.mcpServers, "grove", tool, args, turn.signal),
          elicit: async (request) => {
            if (!clientElicitsForms) throw new Error("the client does not support form elicitation");
            try {
              return await client.request(
                acp.methods.client.elicitation.create,
                { mode: "form", ...request, sessionId: params.sessionId } as acp.CreateElicitationRequest,
                { cancellationSignal: turn.signal, stopWaitingOnCancel: true },
              );
            } catch (e) {
              if (turn.signal.aborted) throw new Error("cancelled", { cause: e });
              throw e;
            }
          },
          usage: async (tokensIn, tokensOut, cost) => {
            turnUsage.inputTokens += tokensIn;
            turnUsage.outputTokens += tokensOut;
            s.contextTokens = (s.contextTokens ?? 0) + tokensIn + tokensOut;
            await send({
              sessionUpdate: "usage_update",
              used: s.contextTokens,
              size: CONTEXT_WINDOW,
              ...(cost !== undefined ? { cost: { amount: cost, currency: "USD" } } : {}),
            });
          },
        },
        text,
      );
      log("turn ended", params.sessionId, stopReason);
      // USE-1: the turn's tokens, as real agents report them in the (unstable) PromptResponse.usage.
      const total = turnUsage.inputTokens + turnUsage.outputTokens;
      return total > 0 ? { stopReason, usage: { ...turnUsage, totalTokens: total } } : { stopReason };
    } finally {
      signal.removeEventListener("abort", abortTurn);
      s.turn = undefined;
    }
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    live.get(params.sessionId)?.turn?.abort();
  });

const connection = app.connect(
  acp.ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>),
);
// Exit when stdin closes (the client went away or stopped us).
void connection.closed.then(() => process.exit(0));
process.stdin.on("end", () => process.exit(0));
log("ready, state in", stateDir);
