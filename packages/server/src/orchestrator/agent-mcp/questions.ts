import type { InboxItem } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import type { McpGrant } from "../../mcp/tokens.js";
import type { QuestionRecord } from "../../store/mcp-store.js";
import type { Deps } from "../context.js";
import type { LiveSessions } from "../sessions/live-sessions.js";
import { getTaskOr404 } from "../tasks/tasks.js";

/** MCP-3: how long `ask_user` waits for the person by default (and at most). */
export const QUESTION_TIMEOUT_S = 30 * 60;

/** The cause key of a question's inbox item. */
export const questionCause = (id: string) => `question:${id}`;

/**
 * MCP-3: an agent's questions to the person. `ask_user` writes the question and its inbox item
 * (kind `question`) first, then its tool call waits — bounded, default 30 minutes, then a typed
 * `question_timeout` — for `POST /inbox/:id/answer`. The question is durable; the wait is not:
 * when the agent's call is gone (the server was killed, the agent restarted or cancelled the
 * call), an answer still reaches the session, as its next prompt (resuming its agent with
 * `session/load` when it has none, or riding on the prompt after a running turn).
 */
export class Questions {
  private readonly waiters = new Map<string, (answer: string) => void>();

  constructor(
    private readonly deps: Pick<Deps, "store" | "bus" | "log" | "now">,
    private readonly live: LiveSessions,
    /** Prompts a session (the orchestrator's guarded prompt: resumes its agent when needed). */
    private readonly prompt: (sessionId: string, text: string) => Promise<unknown>,
  ) {}

  async ask(
    grant: McpGrant,
    args: { question: string; choices?: string[] | undefined; timeoutSeconds?: number | undefined },
    signal: AbortSignal,
  ): Promise<{ answer: string }> {
    const task = await getTaskOr404(this.deps, grant.taskId);
    const now = this.deps.now();
    const timeoutS = Math.min(args.timeoutSeconds ?? QUESTION_TIMEOUT_S, QUESTION_TIMEOUT_S);
    const id = newId("q");
    const choices = args.choices && args.choices.length > 0 ? [...new Set(args.choices)] : null;
    // One transaction: a reader of the inbox never sees the item without its question (choices).
    const item = await this.deps.store.transaction(async () => {
      const item = await this.deps.store.inbox.raise({
        id: newId("inbox"),
        kind: "question",
        taskId: task.id,
        sessionId: grant.sessionId,
        causeKey: questionCause(id),
        title: `${task.title}: ${args.question}`,
        detail: args.question,
        createdAt: now,
      });
      if (!item) throw new AppError("internal_error", "the question's inbox item could not be raised");
      const q: QuestionRecord = {
        id,
        taskId: task.id,
        sessionId: grant.sessionId,
        inboxItemId: item.id,
        text: args.question,
        choices,
        state: "open",
        answer: null,
        createdAt: now,
        deadlineAt: new Date(Date.parse(now) + timeoutS * 1000).toISOString(),
        answeredAt: null,
      };
      await this.deps.store.mcp.insertQuestion(q);
      return item;
    });
    this.deps.bus.publish("inbox.updated", { item: { ...item, ...(choices ? { choices } : {}) } });
    const answer = await new Promise<string | "timeout" | "gone">((resolve) => {
      const timer = setTimeout(() => done("timeout"), timeoutS * 1000);
      const onAbort = () => done("gone");
      const done = (v: string | "timeout" | "gone") => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.waiters.delete(id);
        resolve(v);
      };
      this.waiters.set(id, (a) => done(a));
      signal.addEventListener("abort", onAbort, { once: true });
      if (signal.aborted) onAbort();
    });
    if (answer === "timeout") {
      const closed = await this.deps.store.mcp.closeQuestion(id, "timed_out", null, this.deps.now());
      if (closed) this.publish(await this.deps.store.inbox.resolveCause(questionCause(id), this.deps.now()));
      throw new AppError("question_timeout", `nobody answered within ${timeoutS} s`, { timeoutSeconds: timeoutS });
    }
    // The call is gone: the question stays open; an answer comes as the next prompt.
    if (answer === "gone")
      throw new AppError("question_timeout", "the call ended before an answer came; the answer will come as a prompt", { withdrawn: true });
    return { answer };
  }

  /** `POST /inbox/:id/answer`. */
  async answer(itemId: string, answer: string): Promise<InboxItem> {
    const item = await this.deps.store.inbox.get(itemId);
    if (!item) throw new AppError("not_found", `inbox item ${itemId} not found`, { id: itemId });
    const [q] = item.kind === "question" ? await this.deps.store.mcp.questionsOfItems([itemId]) : [];
    if (!q) throw new AppError("invalid_request", `inbox item ${itemId} is not a question`, { field: "id" });
    if (q.choices && !q.choices.includes(answer))
      throw new AppError("invalid_request", `answer with one of: ${q.choices.join(", ")}`, { field: "answer", choices: q.choices });
    const closed = await this.deps.store.mcp.closeQuestion(q.id, "answered", answer, this.deps.now());
    if (!closed)
      throw new AppError("invalid_request", `question ${itemId} was ${q.state === "answered" ? "answered" : "closed"} already`, {
        field: "id",
        state: q.state,
      });
    this.publish(await this.deps.store.inbox.resolveCause(questionCause(q.id), this.deps.now()));
    const waiter = this.waiters.get(q.id);
    if (waiter) waiter(answer);
    else await this.deliverAsPrompt(q, answer);
    const done = (await this.deps.store.inbox.get(itemId)) ?? item;
    return { ...done, ...(q.choices ? { choices: q.choices } : {}), answer };
  }

  /** The inbox's question items with their choices and answers. */
  async decorate(items: InboxItem[]): Promise<InboxItem[]> {
    const qs = await this.deps.store.mcp.questionsOfItems(items.filter((i) => i.kind === "question").map((i) => i.id));
    if (qs.length === 0) return items;
    const byItem = new Map(qs.map((q) => [q.inboxItemId, q]));
    return items.map((i) => {
      const q = byItem.get(i.id);
      return q ? { ...i, ...(q.choices ? { choices: q.choices } : {}), ...(q.answer !== null ? { answer: q.answer } : {}) } : i;
    });
  }

  private async deliverAsPrompt(q: QuestionRecord, answer: string): Promise<void> {
    // Quoted line by line: the answer is the person's words, never commands of a script.
    const text = [`Answer to your question (ask_user ${q.id}):`, `> ${q.text.replace(/\n/g, " ")}`, ...answer.split("\n").map((l) => `> ${l}`)].join("\n");
    const session = await this.deps.store.getSession(q.sessionId);
    if (!session) return;
    if (session.state === "running" || session.state === "starting") {
      this.live.setPendingSummary(session.id, text);
      return;
    }
    try {
      await this.prompt(session.id, text);
    } catch (err) {
      // Not resumable now (failed, deleted): the answer is recorded; the next prompt carries it.
      this.live.setPendingSummary(session.id, text);
      this.deps.log.warn({ err, sessionId: session.id }, "mcp: an answer could not be sent as a prompt");
    }
  }

  private publish(items: readonly (InboxItem | undefined)[]): void {
    for (const item of items) if (item) this.deps.bus.publish("inbox.updated", { item });
  }
}
