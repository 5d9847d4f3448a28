import type { EventFrame } from "@grove/protocol";
import type { TaskRecord } from "../../domain/records.js";
import { taskChanges } from "./changes.js";
import type { Deps } from "../context.js";
import { summariesOf, type AskingSessions } from "../tasks/task-list.js";

/** How often a busy task's Changes are recomputed for its diff stat, at most. */
const DIFF_STAT_INTERVAL_MS = 5000;

/** The ports (orchestrator/context.ts) TaskSummaryEvents uses. */
export type TaskSummaryEventsPorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "home" | "runnerId" | "now" | "remote">;

/**
 * `task.summary` frames, so the board never refetches its list. Anything a summary
 * shows — a task's fields, a session's state, a permission or agent question, the diff stat — arrives
 * as a frame; each touched task gets one fresh summary read from the database after it, in
 * order (one flush at a time, so an older read can never overtake a newer one). Frames relayed
 * from another server process are skipped: that process publishes its own summaries (ST-3).
 */
export class TaskSummaryEvents {
  private readonly pending = new Set<string>();
  private flushing = false;
  private disposed = false;
  private readonly off: () => void;
  /** Tasks whose diff stat was recomputed recently; `true` = another change came meanwhile. */
  private readonly statTimers = new Map<string, { timer: NodeJS.Timeout; again: boolean }>();
  /** Diff-stat computations still running (each spawns git): `dispose` waits for them. */
  private readonly computing = new Set<Promise<void>>();

  constructor(
    private readonly deps: TaskSummaryEventsPorts,
    private readonly asking: AskingSessions,
  ) {
    this.off = deps.bus.subscribe((f) => {
      if (!deps.bus.isRemoteDelivery) this.onFrame(f);
    });
  }

  /** Publishes a fresh summary of the task soon (coalesced with other touches). */
  touch(taskId: string): void {
    if (this.disposed) return;
    this.pending.add(taskId);
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => void this.flush());
    }
  }

  /** Stops publishing; resolves once no diff-stat computation started earlier is still running. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.off();
    for (const t of this.statTimers.values()) clearTimeout(t.timer);
    this.statTimers.clear();
    this.pending.clear();
    await Promise.all([...this.computing]);
  }

  private onFrame(f: EventFrame): void {
    switch (f.type) {
      case "task.created":
      case "task.updated": {
        const task = (f as EventFrame<"task.updated">).data.task;
        // MCP-3: a subtask created, moved or archived changes its parent's card ("n subtasks · m done").
        if (task.parentId) this.touch(task.parentId);
        return this.touch(task.id);
      }
      case "session.created":
      case "session.state_changed":
        return this.touch((f as EventFrame<"session.created">).data.session.taskId);
      case "session.deleted":
        return this.touch((f as EventFrame<"session.deleted">).data.taskId);
      case "session.message": {
        // Permission questions are system notes; agent chunks (the bulk of all frames) are ignored.
        const d = (f as EventFrame<"session.message">).data;
        if (d.message.role === "system") this.touch(d.taskId);
        return;
      }
      // MCP-3: an agent's question asked, answered or timed out: the card's "needs you" follows it.
      case "inbox.updated": {
        const item = (f as EventFrame<"inbox.updated">).data.item;
        if (item.kind === "question") this.touch(item.taskId);
        return;
      }
      case "pull_request.updated":
        return this.touch((f as EventFrame<"pull_request.updated">).data.taskId);
      // USE-1: the card's cost and context ring (bursts are coalesced per task like every frame).
      case "usage.updated":
        return this.touch((f as EventFrame<"usage.updated">).data.taskId);
      case "changes.updated":
        return this.refreshDiffStat((f as EventFrame<"changes.updated">).data.taskId);
      case "task.deleted": {
        const id = (f as EventFrame<"task.deleted">).data.taskId;
        this.pending.delete(id);
        // MCP-3: a subtask in the trash no longer counts on its parent's card (the row stays, in the trash).
        void this.deps.store
          .getTaskAnyState(id)
          .then((t) => t?.parentId && this.touch(t.parentId))
          .catch(() => undefined);
        return;
      }
      default:
        return;
    }
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.size > 0 && !this.disposed) {
        const ids = [...this.pending];
        this.pending.clear();
        const tasks = (await Promise.all(ids.map((id) => this.deps.store.getTask(id)))).filter((t): t is TaskRecord => t !== undefined);
        const summaries = await summariesOf(this.deps, tasks, this.asking);
        if (this.disposed) return;
        for (const summary of summaries) this.deps.bus.publish("task.summary", { summary });
      }
    } catch (e) {
      // Best effort: the next touch publishes a fresh summary anyway.
      this.pending.clear();
      if (!this.disposed) this.deps.log.warn({ err: e }, "task summary event");
    } finally {
      this.flushing = false;
    }
  }

  /** A worktree changed: recompute the task's Changes (which caches the diff stat), throttled per task. */
  private refreshDiffStat(taskId: string): void {
    const recent = this.statTimers.get(taskId);
    if (recent) {
      recent.again = true;
      return;
    }
    const run = () => {
      const computing: Promise<void> = taskChanges(this.deps, taskId)
        .then(() => this.touch(taskId))
        .catch(() => undefined)
        .finally(() => this.computing.delete(computing));
      this.computing.add(computing);
    };
    const entry = {
      again: false,
      timer: setTimeout(() => {
        this.statTimers.delete(taskId);
        if (entry.again && !this.disposed) this.refreshDiffStat(taskId);
      }, DIFF_STAT_INTERVAL_MS),
    };
    entry.timer.unref();
    this.statTimers.set(taskId, entry);
    run();
  }
}
