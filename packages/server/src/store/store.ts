import { StoreSessions } from "./store-sessions.js";
import type { CleanupJobRecord, CleanupSnapshot } from "../domain/cleanup-job.js";
import type { KeyCursor } from "../domain/cursor.js";
import type { MessageRecord, SessionRecord, TaskRecord } from "../domain/records.js";
import * as cleanup from "./cleanup-jobs-repo.js";
import type { ReserveCleanupInput } from "./cleanup-jobs-repo.js";
import { listTaskInventory, type TaskInventory } from "./inventory-repo.js";
import type { CreationBarrier } from "./barrier-writes.js";
import * as lists from "./list-pages.js";
import { recoverAfterRestart } from "./recovery.js";
import type { Db } from "./schema.js";

/**
 * Grove's persistence: one object over SQLite or PostgreSQL (ST-1), created by `openStore`.
 * Every multi-statement invariant (SES-2, ENV-2/3, SES-6, LC-2) is one method and one
 * transaction; state changes are compare-and-set in SQL, never guarded only in memory.
 *
 * One class to its callers, written in layers by concern so no file holds it all:
 * `store-core.ts` (connection, transactions, sub-stores) ← `store-records.ts` (repositories,
 * tasks, environments) ← `store-sessions.ts` (sessions, messages, agent processes) ← this file
 * (cleanup jobs, paged lists, start-up recovery).
 */
export class Store extends StoreSessions {
  // Cleanup jobs (LC-2 … LC-5) ----------------------------------------------------------

  /** The LC-2 barrier to install with `setCreationBarrier`: refuses while a job of the task is active. */
  readonly cleanupBarrier: CreationBarrier = (trx, taskId) => cleanup.creationBarrier(trx as Db, taskId);

  /** FLOWS "Archive" step 1 in one transaction (task row locked): the job, `prepared`. */
  reserveCleanupJob(input: ReserveCleanupInput): Promise<CleanupJobRecord> {
    return this.tx((ctx) => cleanup.reserveCleanupJob(ctx, input));
  }
  /** Step 2: the inventory; false when the job is no longer `prepared`. */
  setCleanupSnapshot(id: string, snapshot: CleanupSnapshot, now: string): Promise<boolean> {
    return cleanup.setCleanupSnapshot(this.q, id, snapshot, now);
  }
  /** Step 3 in one transaction: the task mutation of the trigger plus `prepared → pending`. */
  activateCleanupJob(id: string, now: string): Promise<CleanupJobRecord> {
    return this.tx((ctx) => cleanup.activateCleanupJob(ctx, id, now));
  }
  /** Deletes a job still `prepared` (a request refused after the reservation leaves no job). */
  discardPreparedCleanupJob(id: string): Promise<void> {
    return cleanup.discardPreparedJob(this.q, id);
  }
  getCleanupJob(id: string): Promise<CleanupJobRecord | undefined> {
    return cleanup.getCleanupJob(this.q, id);
  }
  /** Oldest first; all tasks when `taskId` is undefined. */
  listCleanupJobs(taskId?: string): Promise<CleanupJobRecord[]> {
    return cleanup.listCleanupJobs(this.q, taskId);
  }
  activeCleanupJob(taskId: string): Promise<CleanupJobRecord | undefined> {
    return cleanup.activeCleanupJob(this.q, taskId);
  }
  /** ST-3 compare-and-set claim of a due job of this runner; undefined when another process won. */
  claimCleanupJob(id: string, runnerId: string, now: string): Promise<CleanupJobRecord | undefined> {
    return cleanup.claimCleanupJob(this.q, id, runnerId, now);
  }
  dueCleanupJobIds(runnerId: string, now: string): Promise<string[]> {
    return cleanup.dueCleanupJobIds(this.q, runnerId, now);
  }
  nextCleanupDueAt(runnerId: string): Promise<string | null> {
    return cleanup.nextCleanupDueAt(this.q, runnerId);
  }
  finishCleanupAttempt(id: string, outcome: Parameters<typeof cleanup.finishCleanupAttempt>[2], now: string): Promise<CleanupJobRecord | undefined> {
    return cleanup.finishCleanupAttempt(this.q, id, outcome, now);
  }
  /** LC-4 start-up in one transaction; returns the jobs whose state changed. */
  recoverCleanupJobs(runnerId: string, now: string): Promise<CleanupJobRecord[]> {
    return this.tx(({ db }) => cleanup.recoverCleanupJobs(db, runnerId, now));
  }
  /** LC-5 in one transaction: clears archivedAt, cancels a not-yet-running archive job (returned). */
  unarchiveTask(taskId: string, now: string): Promise<CleanupJobRecord | undefined> {
    return this.tx((ctx) => cleanup.unarchiveTask(ctx, taskId, now));
  }
  /** Every task with its environment rows, for the read-only `grove doctor` audit. */
  listTaskInventory(): Promise<TaskInventory[]> {
    return listTaskInventory(this.q);
  }

  // Paged lists (ADR 2026-11-30-list-paging-keyset) ---------------------------

  /** One keyset page of tasks in (createdAt, id) order; every filter combines. */
  listTaskPage(filter: lists.TaskFilter, page: lists.PageSpec<KeyCursor>): Promise<lists.RowsPage<TaskRecord>> {
    return lists.listTaskPage({ db: this.q, dialect: this.dialect }, filter, page);
  }
  /** WEB-30: tasks per state under the board's filters. */
  countTasksByState(filter: lists.TaskFilter): Promise<Map<TaskRecord["state"], number>> {
    return lists.countTasksByState({ db: this.q, dialect: this.dialect }, filter);
  }
  /** Repository names, active slots, sessions and cached diff stats of these tasks (for summaries). */
  taskSummaryParts(taskIds: readonly string[]): Promise<lists.SummaryParts> {
    return lists.summaryParts(this.q, taskIds);
  }
  /** Caches the totals of a task's freshly computed Changes. */
  putDiffStat(taskId: string, stat: { files: number; additions: number; deletions: number }, now: string): Promise<void> {
    return lists.putDiffStat(this.q, taskId, stat, now);
  }
  listSessionPage(taskId: string, page: lists.PageSpec<KeyCursor>): Promise<lists.RowsPage<SessionRecord>> {
    return lists.listSessionPage(this.q, taskId, page);
  }
  listCleanupJobPage(taskId: string | undefined, page: lists.PageSpec<KeyCursor>): Promise<lists.RowsPage<CleanupJobRecord>> {
    return lists.listCleanupJobPage(this.q, taskId, page);
  }
  /** The `limit` messages before `before` (a seq), returned oldest first. */
  listMessagePage(
    sessionId: string,
    page: { before?: number | undefined; limit: number },
  ): Promise<lists.RowsPage<MessageRecord> & { oldestSeq: number | null }> {
    return lists.listMessagePage(this.q, sessionId, page);
  }

  // Start-up ---------------------------------------------------------------------------

  /** SES-6 for this runner, in one transaction; returns the sessions whose state changed. */
  recoverAfterRestart(runnerId: string, now: string): Promise<SessionRecord[]> {
    return this.tx(({ db }) => recoverAfterRestart(db, runnerId, now));
  }
}
