import { toolStatusStage } from "@grove/protocol";
import { SerialChain } from "../../domain/serial-chain.js";
import type { AgentEvent } from "../../agents/runtime.js";
import { newId } from "../../domain/ids.js";
import type { MessageRecord, MessageRole } from "../../domain/records.js";
import { messageView } from "../../domain/views.js";
import type { AgentStateRecorder } from "./agent-state-recorder.js";
import type { Deps } from "../context.js";
import { toolDetails } from "./tool-details.js";
import type { SessionUsageRecorder } from "../usage/session-usage.js";

/**
 * Longest text one streamed message grows to (characters); the next chunk starts a new message.
 * Bounds what a session holds in memory, what each update rewrites, and each frame's size.
 */
export const MAX_STREAMED_MESSAGE_CHARS = 64 * 1024;

/** How much of a turn's agent text is kept as the reason of a failed turn. */
const TURN_TEXT_CHARS = 2000;

/**
 * Turns a session's ACP updates into persisted messages and live `session.message` events
 * (SES-5). Consecutive chunks of one role are one message (real agents stream tokens); a tool
 * call is one message whose data follows its status. Writes are chained so the database sees
 * updates in arrival order; `flush()` waits for them.
 *
 * Chunks are coalesced: a chunk only appends in memory and, unless a write of that
 * message is already queued, queues one; every chunk that arrives before the write runs rides
 * on it. A stream of 10,000 chunks costs as many writes and frames as the database can take,
 * not 10,000 rewrites of an ever longer text.
 */
export class SessionRecorder {
  private readonly chain = new SerialChain((err: unknown) => this.deps.log.error({ err, sessionId: this.sessionId }, "persisting an agent update failed"));
  private open: MessageRecord | undefined;
  private readonly tools = new Map<string, MessageRecord>();
  /** The streamed message whose text changed since its last write (a write of it is queued). */
  private dirty: MessageRecord | undefined;
  /** Called after a tool call completes (the worktree probably changed). */
  onToolDone: (() => void) | undefined;
  /** AG-2: receives mode, config, command and plan reports. */
  agentState: AgentStateRecorder | undefined;
  /** USE-1: receives `usage_update`s and the turns' token usage. */
  usage: SessionUsageRecorder | undefined;
  /** LIVE-2: what the agent said since the latest prompt (the reason of a refused turn). */
  private turnText = "";
  /** Whether the latest update was an agent chunk, so the next one continues the same message. */
  private agentTextOpen = false;
  /** LIVE-3: when the agent last sent anything (or the turn began), in ms since the epoch. */
  private lastUpdateAt = Date.now();
  /** LIVE-3: tool calls the agent reported and has not closed (they count as progress). */
  private readonly runningTools = new Set<string>();

  constructor(
    private readonly deps: Pick<Deps, "store" | "bus" | "log" | "now">,
    private readonly sessionId: string,
    private readonly taskId: string,
  ) {}

  handle(e: AgentEvent): void {
    this.lastUpdateAt = Date.now();
    if (e.kind === "message_chunk" && e.role === "agent") {
      // Two agent messages (a tool call or a thought between them) are two paragraphs of the
      // reason, never one glued word ("…the configI cannot…").
      const gap = this.turnText !== "" && !this.agentTextOpen ? "\n\n" : "";
      this.turnText = (this.turnText + gap + e.text).slice(-TURN_TEXT_CHARS);
      this.agentTextOpen = true;
    } else if (e.kind === "message_chunk" || e.kind === "tool_call" || e.kind === "plan") this.agentTextOpen = false;
    if (e.kind === "tool_call" || e.kind === "tool_call_update") {
      if (e.status === "completed" || e.status === "failed") this.runningTools.delete(e.toolCallId);
      else if (e.kind === "tool_call" || e.status === "in_progress" || e.status === "pending") this.runningTools.add(e.toolCallId);
    }
    if (e.kind === "usage") {
      this.usage?.update(e);
      return;
    }
    if (this.agentState?.apply(e)) return;
    this.enqueue(() => this.apply(e));
  }

  /** A message the server itself writes (the user's prompt, a system note). */
  note(role: MessageRole, text: string, data?: unknown): void {
    this.agentTextOpen = false;
    if (role === "user") {
      this.turnText = "";
      this.lastUpdateAt = Date.now();
      this.runningTools.clear();
    }
    this.enqueue(async () => {
      this.open = undefined;
      await this.insert(role, text, data);
    });
  }

  /**
   * AG-1: a permission ask names the tool call it is about; some agents (codex-acp) ask before
   * they report that call, or the report is still queued behind the ask. The row exists from the
   * ask on, pending, so the person sees what waits; the agent's own report later updates it.
   */
  toolAsked(toolCallId: string, title: string, kind: string | undefined): void {
    this.enqueue(async () => {
      if (this.tools.has(toolCallId)) return;
      this.open = undefined;
      const m = await this.insert("tool", title, { toolCallId, status: "pending", kind: kind ?? null });
      this.tools.set(toolCallId, m);
    });
  }

  /** LIVE-2: the agent's own words in the current turn (its last {@link TURN_TEXT_CHARS} characters). */
  agentTextOfTurn(): string {
    return this.turnText;
  }

  /** LIVE-3: when the agent last showed progress this turn, and whether a tool call of it still runs. */
  progress(): { lastUpdateAt: number; toolRunning: boolean } {
    return { lastUpdateAt: this.lastUpdateAt, toolRunning: this.runningTools.size > 0 };
  }

  /** Ends the current streamed message: the next chunk starts a new one. */
  closeMessage(): void {
    this.agentTextOpen = false;
    this.enqueue(async () => {
      this.open = undefined;
    });
  }

  /** Resolves once every queued write is done, including writes queued while waiting (a chunk's coalesced write). */
  async flush(): Promise<void> {
    await this.chain.flush();
  }

  /**
   * AG-1: the turn ended (any stop reason, cancel, agent exit): every tool call of this
   * session still `pending`/`in_progress` is closed with `status` (`cancelled` or `interrupted`).
   */
  closeOpenTools(status: "cancelled" | "interrupted"): void {
    this.runningTools.clear();
    this.enqueue(async () => {
      // Closed rows stay known: a late final update from the agent still lands on its row.
      for (const m of this.tools.values()) {
        if (!isDone(toolStatus(m))) {
          m.data = { ...(m.data as ToolData), status };
          await this.deps.store.updateMessage(m.id, { data: m.data });
          this.publish(m);
        }
      }
    });
  }

  private enqueue(fn: () => Promise<void>): void {
    this.chain.enqueue(fn);
  }

  private async apply(e: AgentEvent): Promise<void> {
    switch (e.kind) {
      case "message_chunk": {
        if (this.open && this.open.role === e.role && this.open.text.length < MAX_STREAMED_MESSAGE_CHARS) {
          this.open.text += e.text;
          if (this.dirty !== this.open) {
            const m = (this.dirty = this.open);
            this.enqueue(() => this.writeStreamed(m));
          }
        } else {
          this.open = await this.insert(e.role, e.text, e.messageId ? { messageId: e.messageId } : undefined);
        }
        return;
      }
      case "tool_call":
      case "tool_call_update": {
        const known = this.tools.get(e.toolCallId);
        // AG-1: a repeated tool_call (some bridges send one with empty input, then the full one)
        // updates its row; an update for an unknown id (e.g. after a restart) starts one.
        if (!known) {
          this.open = undefined;
          const m = await this.insert("tool", e.title ?? "tool call", mergeTool({ toolCallId: e.toolCallId, status: "pending", kind: null }, e));
          this.tools.set(e.toolCallId, m);
          if (isDone(toolStatus(m))) this.onToolDone?.();
          return;
        }
        known.data = mergeTool(known.data as ToolData, e);
        if (e.title) known.text = e.title;
        await this.deps.store.updateMessage(known.id, { text: known.text, data: known.data });
        this.publish(known);
        if (e.status === "completed" || e.status === "failed") this.onToolDone?.();
        return;
      }
      case "plan": {
        this.open = undefined;
        const text = e.entries.map((x) => `[${x.status}] ${x.content}`).join("\n");
        await this.insert("plan", text, { entries: e.entries });
        return;
      }
      default:
        return;
    }
  }

  /** The queued write of a streamed message: its text as it is now, every chunk so far included. */
  private async writeStreamed(m: MessageRecord): Promise<void> {
    if (this.dirty === m) this.dirty = undefined;
    await this.deps.store.updateMessage(m.id, { text: m.text });
    this.publish(m);
  }

  private async insert(role: MessageRole, text: string, data?: unknown): Promise<MessageRecord> {
    const m: MessageRecord = { id: newId("msg"), sessionId: this.sessionId, role, text, data: data ?? null, createdAt: this.deps.now() };
    await this.deps.store.insertMessage(m);
    this.publish(m);
    return m;
  }

  private publish(m: MessageRecord): void {
    this.deps.bus.publish("session.message", { sessionId: this.sessionId, taskId: this.taskId, message: messageView({ ...m }) });
  }
}

type ToolData = Record<string, unknown> & { toolCallId: string; status: string };
type ToolEvent = Extract<AgentEvent, { kind: "tool_call" | "tool_call_update" }>;

function toolStatus(m: MessageRecord): string {
  return String((m.data as ToolData | null)?.status ?? "pending");
}

function isDone(status: string): boolean {
  return toolStatusStage(status) === 2;
}

/** The tool row's data after an update: fields the update carries replace the row's (AG-1). */
function mergeTool(data: ToolData, e: ToolEvent): ToolData {
  return {
    ...data,
    ...(e.status ? { status: e.status } : {}),
    ...(e.toolKind ? { kind: e.toolKind } : {}),
    ...(e.input !== undefined ? { input: e.input } : {}),
    // Content and raw output capped for the page (tool-details.ts).
    ...toolDetails(e.raw),
    ...(e.locations ? { locations: e.locations } : {}),
  };
}
