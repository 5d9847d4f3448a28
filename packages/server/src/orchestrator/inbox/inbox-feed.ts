import { SerialChain } from "../../domain/serial-chain.js";
import type { EventFrame, EventMap, InboxItem, InboxKind, Session, UpdateResult } from "@grove/protocol";
import { newId } from "../../domain/ids.js";
import { isFailedOutcome } from "../../domain/turn-outcome.js";
import type { Deps } from "../context.js";
import type { NewInboxItem } from "../../store/inbox-store.js";

/** Items about a session's latest turn: resolved once the session works again (next turn, resume, restart). */
const TURN_KINDS: readonly InboxKind[] = ["turn_finished", "turn_failed", "stalled", "agent_crashed"];

/** The cause key of a repository's kept conflicts: one per update (its backup ref), so a later stop raises again. */
export const conflictCause = (taskId: string, repositoryId: string, backupRef: string) => `conflict:${taskId}:${repositoryId}:${backupRef}`;

/** The cause key of a permission request's item. */
export const permissionCause = (requestId: string) => `perm:${requestId}`;

/**
 * LIVE-4: raises and resolves inbox items from the events that need a person — a permission
 * asked, a turn finished or failed, a stall, an agent crash, failing checks — and publishes
 * each change as an `inbox.updated` frame. Only this process's own frames are read: the runner
 * where a thing happened raises its item (unique cause keys make a repeat a no-op). Work is
 * chained, so an item is always raised before the event that resolves it is handled.
 */
export class InboxFeed {
  private readonly chain = new SerialChain((err: unknown) => this.deps.log.error({ err }, "inbox: recording an item failed"));
  private readonly off: () => void;

  constructor(private readonly deps: Pick<Deps, "store" | "bus" | "log" | "now">) {
    this.off = deps.bus.subscribe((f) => {
      if (!deps.bus.isRemoteDelivery) this.onFrame(f);
    });
  }

  /** A permission request was answered or withdrawn (its turn ended): its item is done. */
  askSettled(requestId: string): void {
    this.enqueue(async () => this.publish(await this.deps.store.inbox.resolveCause(permissionCause(requestId), this.deps.now())));
  }

  /**
   * An update from base ended: a repository left holding conflicts (kept for the person or the
   * agent) is a `conflict` item; once it is updated, up to date or aborted, the item is done.
   */
  updateResult(taskId: string, result: UpdateResult): void {
    for (const r of result.results) {
      const causeKey = conflictCause(taskId, r.repositoryId, r.backupRef);
      if (r.outcome === "conflicts") {
        const files = r.conflicts ?? [];
        this.enqueue(() =>
          this.raise({
            kind: "conflict",
            taskId,
            causeKey,
            what: `update from base stopped on conflicts in ${files.length} file${files.length === 1 ? "" : "s"}`,
            detail: files.join(", "),
          }),
        );
      } else {
        this.enqueue(async () => this.publish(await this.deps.store.inbox.resolveCause(causeKey, this.deps.now())));
      }
    }
  }

  /** Resolves once every queued change is written (tests, shutdown). */
  async flush(): Promise<void> {
    await this.chain.flush();
  }

  dispose(): void {
    this.off();
  }

  private enqueue(fn: () => Promise<void>): void {
    this.chain.enqueue(fn);
  }

  private publish(items: readonly (InboxItem | undefined)[]): void {
    for (const item of items) if (item) this.deps.bus.publish("inbox.updated", { item });
  }

  private async raise(n: Omit<NewInboxItem, "id" | "createdAt" | "title"> & { what: string }): Promise<void> {
    const task = await this.deps.store.getTask(n.taskId);
    if (!task) return;
    const { what, ...rest } = n;
    this.publish([await this.deps.store.inbox.raise({ ...rest, id: newId("inbox"), title: `${task.title}: ${what}`, createdAt: this.deps.now() })]);
  }

  private onFrame(f: EventFrame): void {
    switch (f.type) {
      case "session.state_changed": {
        const { session, from } = (f as EventFrame<"session.state_changed">).data;
        this.enqueue(() => this.onSessionState(session, from));
        return;
      }
      case "session.message": {
        const { sessionId, taskId, message } = (f as EventFrame<"session.message">).data;
        const ask = (message.data as { permissionRequest?: { requestId: string; title: string } } | null | undefined)?.permissionRequest;
        if (ask) this.enqueue(() => this.raise({ kind: "permission", taskId, sessionId, causeKey: permissionCause(ask.requestId), what: ask.title }));
        return;
      }
      case "session.deleted": {
        const { sessionId } = (f as EventFrame<"session.deleted">).data;
        this.enqueue(async () =>
          this.publish(await this.deps.store.inbox.resolveOf({ sessionId }, [...TURN_KINDS, "permission", "question"], this.deps.now())),
        );
        return;
      }
      case "task.updated": {
        // LIVE-4.8: a task moved to Done (a merge moves it there) or archived is finished: what was
        // said about its last turn no longer needs anyone.
        const { task } = (f as EventFrame<"task.updated">).data;
        if (task.state === "done" || task.archivedAt !== null)
          this.enqueue(async () => this.publish(await this.deps.store.inbox.resolveOf({ taskId: task.id }, TURN_KINDS, this.deps.now())));
        return;
      }
      case "pull_request.updated": {
        const d = (f as EventFrame<"pull_request.updated">).data;
        this.enqueue(() => this.onPullRequest(d));
        return;
      }
      default:
        return;
    }
  }

  private async onSessionState(session: Session, from: Session["state"] | null): Promise<void> {
    const now = this.deps.now();
    // The session works again: what was said about its last turn no longer needs anyone.
    if (session.state === "running" || session.state === "starting") {
      this.publish(await this.deps.store.inbox.resolveOf({ sessionId: session.id }, TURN_KINDS, now));
      return;
    }
    // Start-up recovery (from null) raises nothing: the restart itself is no news to act on.
    if (from !== "running" && from !== "starting") return;
    const base = { taskId: session.taskId, sessionId: session.id, causeKey: `turn:${session.id}:${session.updatedAt}` };
    const turn = session.lastTurn;
    if (session.state === "waiting_for_input" && from === "running") {
      if (turn && isFailedOutcome(turn.outcome)) await this.raise({ ...base, kind: "turn_failed", what: `turn ${turn.outcome}`, detail: turn.reason });
      else if (!turn || turn.outcome === "completed") await this.raise({ ...base, kind: "turn_finished", what: "the agent is waiting for you" });
      return;
    }
    if (session.state === "failed") {
      const reason = turn?.reason ?? session.lastError?.message;
      if (turn?.outcome === "stalled") await this.raise({ ...base, kind: "stalled", what: "the turn stalled", detail: reason });
      else if (session.lastError?.code === "agent_crashed") await this.raise({ ...base, kind: "agent_crashed", what: "the agent crashed", detail: reason });
      else await this.raise({ ...base, kind: "turn_failed", what: "the session failed", detail: reason });
    }
  }

  private async onPullRequest(d: EventMap["pull_request.updated"]): Promise<void> {
    const pr = d.pullRequest;
    const causeKey = `checks:${d.taskId}:${pr.repositoryId}:${pr.number}:${pr.headCommit}`;
    if (pr.checks === "failure") {
      await this.raise({ kind: "checks_failed", taskId: d.taskId, causeKey, what: `checks failed on PR #${pr.number}`, detail: pr.url });
      return;
    }
    // Checks pending or green again (a new push, a re-run): earlier failures are resolved.
    const open = (await this.deps.store.inbox.list("open")).filter((i) => i.kind === "checks_failed" && i.taskId === d.taskId);
    const now = this.deps.now();
    for (const i of open) this.publish([await this.deps.store.inbox.markDone(i.id, now)]);
  }
}
