import { randomUUID } from "node:crypto";
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { Readable, Writable } from "node:stream";
import type * as acp from "@agentclientprotocol/sdk";
import type { AgentModes } from "@grove/protocol";
import type { AgentConfigOption } from "../domain/agent-state.js";
import type { AcpSdk } from "./acp-sdk.js";
import {
  toAgentEvent,
  toConfigOptions,
  turnUsageOf,
  type AgentEvent,
  type ElicitationAnswer,
  type ElicitationAsk,
  type PermissionAsk,
  type TurnUsage,
} from "./agent-events.js";

export type { AgentEvent, PermissionAsk } from "./agent-events.js";

/** Options of {@link AcpClientConnection}. */
export interface AcpConnectionOptions {
  /** The agent's stdin. */
  output: Writable;
  /** The agent's stdout. */
  input: Readable;
  /** Raw ACP frames, one `{at, dir: "in"|"out", msg}` JSON object per line (appended). */
  logFile: string;
  permissionPolicy: "auto_approve" | "ask";
  /** Called synchronously, in arrival order, for every update the SDK accepted. */
  onEvent(e: AgentEvent): void;
  /** Used only when the policy is `ask`. */
  onPermission(ask: PermissionAsk): Promise<{ optionId: string } | "cancelled">;
  /** MCP-3: form elicitations go to the person; absent, none is advertised and each is declined. */
  onElicitation?(ask: ElicitationAsk, signal: AbortSignal): Promise<ElicitationAnswer>;
}

/** The auth-status extension notification of Claude's bridge (`agentCapabilities._meta.authStatus`). */
const AUTH_STATUS_METHOD = "_auth/status_update";

type Msg = acp.AnyMessage & { id?: unknown; method?: string; params?: { sessionId?: string } };

/**
 * The ACP client side of one agent process (SES-5). Advertises no fs/terminal capabilities:
 * agents read and write files themselves in their cwd. Taps both directions of the stream for
 * the raw log (the SDK drops updates it cannot validate, gotcha 1), and drops the history that
 * `session/load` replays before its response so consumers never see it twice (gotcha 7).
 */
export class AcpClientConnection {
  private readonly conn: acp.ClientConnection;
  /** Raw log fd, or null once closed or broken. Synchronous appends: the log is readable live and complete at any moment. */
  private logFd: number | null;
  private closing: Promise<void> | null = null;
  /** JSON-RPC ids of outgoing session/load requests whose response has not arrived yet. */
  private readonly loading = new Set<unknown>();
  private readonly pendingAsks = new Map<string, () => void>();
  private authKind: string | undefined;
  private readonly authWaiters: (() => void)[] = [];
  private readonly updateWaiters = new Set<() => void>();

  /** `sdk`: the loaded ACP SDK (see acp-sdk.ts). */
  constructor(
    private readonly opts: AcpConnectionOptions,
    private readonly sdk: AcpSdk,
  ) {
    mkdirSync(dirname(opts.logFile), { recursive: true, mode: 0o700 });
    // SEC-6: prompts and agent output are private to the user.
    this.logFd = openSync(opts.logFile, "a", 0o600);
    const base = sdk.ndJsonStream(Writable.toWeb(opts.output) as WritableStream<Uint8Array>, Readable.toWeb(opts.input) as ReadableStream<Uint8Array>);
    const outTap = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      transform: (m, c) => {
        const msg = m as Msg;
        this.record("out", msg);
        if (msg.method === this.sdk.methods.agent.session.load && msg.id !== undefined) this.loading.add(msg.id);
        c.enqueue(m);
      },
    });
    const inTap = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      transform: (m, c) => {
        const msg = m as Msg;
        this.record("in", msg);
        if (msg.method === AUTH_STATUS_METHOD) this.noteAuthStatus(msg.params);
        if (isProgress(msg, this.sdk)) for (const w of [...this.updateWaiters]) w();
        if (msg.method === undefined && this.loading.has(msg.id)) this.loading.delete(msg.id);
        // Replayed history arrives before the load's response: log it, never deliver it.
        if (msg.method === this.sdk.methods.client.session.update && this.loading.size > 0) return;
        c.enqueue(m);
      },
    });
    outTap.readable.pipeTo(base.writable).catch(() => undefined);
    this.conn = sdk
      .client({ name: "grove" })
      .onNotification(sdk.methods.client.session.update, ({ params }) => {
        try {
          opts.onEvent(toAgentEvent(params.update));
        } catch {
          // A consumer's failure must not stop the stream of later updates.
        }
      })
      .onRequest(sdk.methods.client.session.requestPermission, ({ params, signal }) => this.answerPermission(params, signal))
      .onRequest(sdk.methods.client.elicitation.create, ({ params, signal }) => this.answerElicitation(params, signal))
      .connect({ writable: outTap.writable, readable: base.readable.pipeThrough(inTap) });
  }

  /**
   * AG-3: the identity kind the agent last pushed with the `_auth/status_update` extension
   * (Claude's bridge: `none` when it has no credentials), waiting up to `waitMs` for the first.
   */
  async authStatus(waitMs: number): Promise<string | undefined> {
    if (this.authKind === undefined && waitMs > 0) {
      await Promise.race([new Promise<void>((r) => this.authWaiters.push(r)), new Promise((r) => setTimeout(r, waitMs).unref())]);
    }
    return this.authKind;
  }

  private noteAuthStatus(params: unknown): void {
    const kind = (params as { authStatus?: { kind?: unknown } } | undefined)?.authStatus?.kind;
    if (typeof kind !== "string") return;
    this.authKind = kind;
    for (const w of this.authWaiters.splice(0)) w();
  }

  /** Aborted when the connection closes (the agent's stdout ended or {@link close} was called). */
  get signal(): AbortSignal {
    return this.conn.signal;
  }

  /**
   * `initialize` with protocol v1; the only client capability is form elicitation (MCP-3), when
   * the person can be asked. Gives up after `timeoutMs`.
   */
  initialize(timeoutMs: number): Promise<acp.InitializeResponse> {
    const clientCapabilities: acp.ClientCapabilities = this.opts.onElicitation ? { elicitation: { form: {} } } : {};
    return this.conn.agent.request(
      this.sdk.methods.agent.initialize,
      { protocolVersion: this.sdk.PROTOCOL_VERSION, clientCapabilities, clientInfo: { name: "grove", version: "0.1.0" } },
      timeout(timeoutMs),
    );
  }

  /** ACP `authenticate` with one of the agent's advertised methods (AG-3). */
  async authenticate(methodId: string, timeoutMs: number): Promise<void> {
    await this.conn.agent.request(this.sdk.methods.agent.authenticate, { methodId }, timeout(timeoutMs));
  }

  /**
   * Resolves true at the next sign of work from the agent (see {@link isProgress}; delivered or
   * not), false after `ms` without one, or when the connection closes.
   */
  nextUpdate(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const t = setTimeout(() => done(false), ms);
      t.unref();
      const done = (v: boolean) => {
        clearTimeout(t);
        this.updateWaiters.delete(waiter);
        this.signal.removeEventListener("abort", onAbort);
        resolve(v);
      };
      const waiter = () => done(true);
      const onAbort = () => done(false);
      this.updateWaiters.add(waiter);
      this.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** `session/new` in `cwd`; the agent's ACP session id and the modes and config options it reports (AG-2). */
  async newSession(cwd: string, timeoutMs: number, mcpServers: acp.McpServerStdio[] = []): Promise<SessionSetup & { sessionId: string }> {
    const res = await this.conn.agent.request(this.sdk.methods.agent.session.new, { cwd, mcpServers }, timeout(timeoutMs));
    return { sessionId: res.sessionId, ...setupOf(res) };
  }

  /** `session/load`; the replayed history is suppressed (see the class comment). */
  async loadSession(sessionId: string, cwd: string, timeoutMs: number, mcpServers: acp.McpServerStdio[] = []): Promise<SessionSetup> {
    try {
      return setupOf(await this.conn.agent.request(this.sdk.methods.agent.session.load, { sessionId, cwd, mcpServers }, timeout(timeoutMs)));
    } finally {
      // After a timeout no response may ever come: never suppress later, live updates.
      this.loading.clear();
    }
  }

  /**
   * One prompt turn; resolves with the agent's stop reason. No timeout: turns may be long. Each
   * text is its own content block (a resume summary stays apart from the person's words).
   */
  async prompt(sessionId: string, texts: readonly string[]): Promise<{ stopReason: string; usage?: TurnUsage }> {
    const prompt: acp.ContentBlock[] = texts.map((text) => ({ type: "text", text }));
    const res = await this.conn.agent.request(this.sdk.methods.agent.session.prompt, { sessionId, prompt });
    // USE-1: the turn's token usage, when the agent reports it (unstable ACP field).
    const usage = turnUsageOf(res);
    return { stopReason: res.stopReason, ...(usage ? { usage } : {}) };
  }

  /** AG-2: `session/set_mode`. */
  async setMode(sessionId: string, modeId: string, timeoutMs: number): Promise<void> {
    await this.conn.agent.request(this.sdk.methods.agent.session.setMode, { sessionId, modeId }, timeout(timeoutMs));
  }

  /** AG-2: `session/set_config_option` (a model, for instance); the agent's config options after it. */
  async setConfigOption(sessionId: string, configId: string, value: string, timeoutMs: number): Promise<AgentConfigOption[]> {
    const res = (await this.conn.agent.request(this.sdk.methods.agent.session.setConfigOption, { sessionId, configId, value }, timeout(timeoutMs))) as {
      configOptions?: acp.SessionConfigOption[] | null;
    };
    return toConfigOptions(res.configOptions);
  }

  /** `session/cancel`, and every permission ask still waiting is answered `cancelled` (ACP). */
  async cancel(sessionId: string): Promise<void> {
    for (const cancelAsk of [...this.pendingAsks.values()]) cancelAsk();
    if (this.conn.signal.aborted) return;
    await this.conn.agent.notify(this.sdk.methods.agent.session.cancel, { sessionId });
  }

  /** Closes the connection (pending requests reject) and flushes the raw log. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const cancelAsk of [...this.pendingAsks.values()]) cancelAsk();
      this.conn.close();
      // Frames already in flight through the taps still get logged before the end.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.logFd === null) return;
      closeSync(this.logFd);
      this.logFd = null;
    })();
    return this.closing;
  }

  private record(dir: "in" | "out", msg: unknown): void {
    if (this.logFd === null) return;
    try {
      writeSync(this.logFd, `${JSON.stringify({ at: new Date().toISOString(), dir, msg: redactMcpEnv(msg) })}\n`);
    } catch {
      // A broken log (disk full) must not break the agent; stop logging.
      const fd = this.logFd;
      this.logFd = null;
      try {
        closeSync(fd);
      } catch {
        // already unusable
      }
    }
  }

  /**
   * MCP-3: a form elicitation goes to the person (every permission policy: it is a question, not a
   * permission). A URL elicitation (never advertised) is declined; a failure of the person's side
   * is `cancel`, so the agent goes on.
   */
  private async answerElicitation(params: acp.CreateElicitationRequest, signal: AbortSignal): Promise<acp.CreateElicitationResponse> {
    const form = params as { mode?: unknown; requestedSchema?: unknown; toolCallId?: unknown };
    if (!this.opts.onElicitation || form.mode !== "form") return { action: "decline" };
    try {
      return await this.opts.onElicitation(
        { message: params.message, requestedSchema: form.requestedSchema, ...(typeof form.toolCallId === "string" ? { toolCallId: form.toolCallId } : {}) },
        signal,
      );
    } catch {
      return { action: "cancel" };
    }
  }

  private async answerPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const cancelled: acp.RequestPermissionResponse = { outcome: { outcome: "cancelled" } };
    if (this.opts.permissionPolicy === "auto_approve") {
      const o = params.options.find((x) => x.kind === "allow_always") ?? params.options.find((x) => x.kind === "allow_once");
      return o ? { outcome: { outcome: "selected", optionId: o.optionId } } : cancelled;
    }
    const requestId = `perm_${randomUUID()}`;
    const ask: PermissionAsk = {
      requestId,
      title: params.toolCall.title ?? "Permission requested",
      toolCallId: params.toolCall.toolCallId,
      ...(params.toolCall.kind ? { toolKind: params.toolCall.kind } : {}),
      options: params.options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
    };
    let onCancel = () => {};
    const cancelledByUs = new Promise<"cancelled">((resolve) => {
      onCancel = () => resolve("cancelled");
    });
    this.pendingAsks.set(requestId, onCancel);
    signal.addEventListener("abort", onCancel, { once: true });
    try {
      const answer = await Promise.race([this.opts.onPermission(ask).catch(() => "cancelled" as const), cancelledByUs]);
      if (answer === "cancelled" || !params.options.some((o) => o.optionId === answer.optionId)) return cancelled;
      return { outcome: { outcome: "selected", optionId: answer.optionId } };
    } finally {
      this.pendingAsks.delete(requestId);
      signal.removeEventListener("abort", onCancel);
    }
  }
}

/**
 * MCP-1: the env of the MCP servers a `session/new` / `session/load` hands the agent carries
 * its capability token; the raw log keeps the names and never the values.
 */
function redactMcpEnv(msg: unknown): unknown {
  const params = (msg as { params?: { mcpServers?: unknown } } | undefined)?.params;
  if (!params || !Array.isArray(params.mcpServers)) return msg;
  const mcpServers = params.mcpServers.map((s: { env?: unknown }) =>
    Array.isArray(s?.env) ? { ...s, env: s.env.map((e: { name?: unknown }) => ({ name: e?.name, value: "[redacted]" })) } : s,
  );
  return { ...(msg as object), params: { ...params, mcpServers } };
}

/** What counts as a turn's progress: output of the model (text, thought, a tool call, a plan), a permission ask or a question (elicitation), not bookkeeping such as commands, titles or usage. */
const PROGRESS_UPDATES = new Set(["agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"]);

function isProgress(msg: Msg, sdk: AcpSdk): boolean {
  if (msg.method === sdk.methods.client.session.requestPermission || msg.method === sdk.methods.client.elicitation.create) return true;
  if (msg.method !== sdk.methods.client.session.update) return false;
  const kind = (msg.params as { update?: { sessionUpdate?: unknown } } | undefined)?.update?.sessionUpdate;
  return typeof kind === "string" && PROGRESS_UPDATES.has(kind);
}

/** ACP has no request timeout: abort via `$/cancel_request` and stop waiting (gotcha 5). */
function timeout(ms: number): acp.SendRequestOptions {
  return { cancellationSignal: AbortSignal.timeout(ms), stopWaitingOnCancel: true };
}

/** AG-2: what `session/new` and `session/load` report about the session's modes and options. */
export interface SessionSetup {
  modes?: AgentModes;
  configOptions: AgentConfigOption[];
  /**
   * AG-2: the id of the `mode` config option when the agent reports its modes only that way
   * (opencode: `build`/`plan`); `modes` is then derived from it and a mode is set with
   * `session/set_config_option`, not `session/set_mode`.
   */
  modeOption?: string;
}

function setupOf(res: { modes?: acp.SessionModeState | null; configOptions?: acp.SessionConfigOption[] | null }): SessionSetup {
  const modes = res.modes
    ? {
        currentModeId: res.modes.currentModeId,
        availableModes: res.modes.availableModes.map((m) => ({ id: m.id, name: m.name, ...(m.description ? { description: m.description } : {}) })),
      }
    : undefined;
  const configOptions = toConfigOptions(res.configOptions);
  if (modes) return { modes, configOptions };
  const mode = configOptions.find((o) => o.category === "mode");
  if (!mode) return { configOptions };
  return {
    modes: {
      currentModeId: mode.currentValue,
      availableModes: mode.options.map((o) => ({ id: o.value, name: o.name, ...(o.description ? { description: o.description } : {}) })),
    },
    configOptions,
    modeOption: mode.id,
  };
}
