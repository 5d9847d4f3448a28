import { AsyncLocalStorage } from "node:async_hooks";
import type { Kysely } from "kysely";
import type { AgentState } from "../domain/agent-state.js";
import type { SessionSandbox } from "../domain/sandbox-profile.js";
import type { CleanupJobRecord, CleanupSnapshot } from "../domain/cleanup-job.js";
import type { KeyCursor } from "../domain/cursor.js";
import type { SlotResult } from "../domain/environment-merge.js";
import type {
  AgentProcessRecord,
  EnvironmentRecord,
  EnvironmentRepoRecord,
  MessageRecord,
  RepositoryRecord,
  SessionRecord,
  SessionState,
  TaskRecord,
} from "../domain/records.js";
import * as agents from "./agent-processes-repo.js";
import * as barrierWrites from "./barrier-writes.js";
import * as cleanup from "./cleanup-jobs-repo.js";
import type { ReserveCleanupInput } from "./cleanup-jobs-repo.js";
import { listTaskInventory, type TaskInventory } from "./inventory-repo.js";
import type { CreationBarrier, LaunchReservation } from "./barrier-writes.js";
import * as credentials from "./credentials-repo.js";
import * as envs from "./environments-repo.js";
import * as lists from "./list-pages.js";
import * as messages from "./messages-repo.js";
import { recoverAfterRestart } from "./recovery.js";
import * as repos from "./repositories-repo.js";
import { deleteRepositoryIfUnused } from "./repository-delete.js";
import type { Ctx, DB, Db, StoreDialect } from "./schema.js";
import * as sessions from "./sessions-repo.js";
import * as tasks from "./tasks-repo.js";
import * as trash from "./trash-repo.js";
import { runInTransaction } from "./transaction.js";
import { ReviewStore } from "./review-store.js";
import { RunnersStore } from "./runners-store.js";
import { PlacementStore } from "./placement-store.js";
import { InboxStore } from "./inbox-store.js";
import { McpStore } from "./mcp-store.js";
import { UsageStore } from "./usage-store.js";
import { SettingsStore } from "./settings-store.js";
import { WorkflowStore } from "./workflow-store.js";

/**
 * Grove's persistence: one object over SQLite or PostgreSQL (ST-1), created by `openStore`.
 * Every multi-statement invariant (SES-2, ENV-2/3, SES-6, LC-2) is one method and one
 * transaction; state changes are compare-and-set in SQL, never guarded only in memory.
 */
export class Store {
  readonly dialect: StoreDialect;
  private readonly db: Kysely<DB>;
  private barrier: CreationBarrier = async () => {};
  /** The transaction the current async context runs in, if any (see `transaction`). */
  private readonly current = new AsyncLocalStorage<{ trx: Kysely<DB>; open: boolean }>();

  /** Review comments and pull requests (review-store.ts). */
  readonly review = new ReviewStore(() => ({ db: this.q, dialect: this.dialect }));

  /** The runners registry (runners-store.ts). */
  readonly runners = new RunnersStore(() => this.q);
  /** Task labels and repository runners for placement (placement-store.ts). */
  readonly placement = new PlacementStore(() => this.q);
  /** LIVE-4: the durable attention inbox (inbox-store.ts). */
  readonly inbox = new InboxStore(() => this.q);
  /** MCP-2: what agents report through Grove's MCP server (mcp-store.ts). */
  readonly mcp = new McpStore(() => this.q);
  /** WF-1/WF-2: workflows, step entries and runs (workflow-store.ts). */
  readonly workflows = new WorkflowStore(() => this.q);
  /** WEB-44: a person's settings and agent profile choices (settings-store.ts). */
  readonly settings = new SettingsStore(() => this.q);
  /** USE-1/USE-2: usage totals, the ledger, budgets (usage-store.ts). */
  readonly usage = new UsageStore(
    () => ({ db: this.q, dialect: this.dialect }),
    (fn) => this.tx(fn),
  );

  /** Use `openStore`; this takes an already migrated database. */
  constructor(db: Kysely<DB>, dialect: StoreDialect) {
    this.db = db;
    this.dialect = dialect;
  }

  /** Closes the connection (SQLite) or the pool (PostgreSQL). */
  close(): Promise<void> {
    return this.db.destroy();
  }

  /**
   * LC-2 hook: `check` runs inside every barrier transaction (reserveLaunch,
   * mergeEnvironmentRepos) after the task row is locked, with the transaction (a
   * Kysely<DB>, see `transaction`) and the task id; it throws
   * AppError("task_cleanup_in_progress") to refuse. Default: no-op.
   */
  setCreationBarrier(check: (trx: unknown, taskId: string) => Promise<void>): void {
    this.barrier = check;
  }

  /**
   * Runs `fn` inside one transaction (SQLite: BEGIN IMMEDIATE); `trx` is a Kysely<DB>.
   * Store methods called from inside `fn` (in its async context) join this transaction,
   * and so do nested `transaction` calls: without that, a store method inside `fn` would
   * wait forever for SQLite's single connection, or run outside the transaction on
   * PostgreSQL. Do not leave work running past `fn`'s promise.
   */
  transaction<T>(fn: (trx: unknown) => Promise<T>): Promise<T> {
    return this.tx(({ db }) => fn(db));
  }

  /** Where a single statement runs: the caller's open transaction, or the database. */
  private get q(): Kysely<DB> {
    const c = this.current.getStore();
    return c?.open ? c.trx : this.db;
  }

  private async tx<T>(fn: (ctx: Ctx) => Promise<T>): Promise<T> {
    const c = this.current.getStore();
    if (c?.open) return fn({ db: c.trx, dialect: this.dialect });
    return runInTransaction(this.db, this.dialect, async (trx) => {
      const scope = { trx, open: true };
      try {
        return await this.current.run(scope, () => fn({ db: trx, dialect: this.dialect }));
      } finally {
        // Work that outlives the transaction (a stray promise) must not run on a connection
        // that went back to the pool: from now on it uses the database directly.
        scope.open = false;
      }
    });
  }

  // Repositories -----------------------------------------------------------------------

  /** Unique name and path; a duplicate → AppError("repository_exists"). */
  insertRepository(r: RepositoryRecord): Promise<void> {
    return repos.insertRepository({ db: this.q, dialect: this.dialect }, r);
  }
  getRepository(id: string): Promise<RepositoryRecord | undefined> {
    return repos.getRepository(this.q, id);
  }
  findRepositoryByName(name: string): Promise<RepositoryRecord | undefined> {
    return repos.findRepositoryByName(this.q, name);
  }
  /** Oldest first. */
  listRepositories(): Promise<RepositoryRecord[]> {
    return repos.listRepositories(this.q);
  }
  /** WT-9: changes checkout settings; undefined when there is no such repository. */
  updateRepositorySettings(id: string, patch: repos.RepositorySettingsPatch, now: string): Promise<RepositoryRecord | undefined> {
    return repos.updateRepositorySettings({ db: this.q, dialect: this.dialect }, id, patch, now);
  }

  /** Removes an unreferenced repository and its credential (`repository_in_use` otherwise), in one transaction. */
  deleteRepository(id: string): Promise<void> {
    return this.tx((ctx) => deleteRepositoryIfUnused(ctx, id));
  }

  /** RR-2: stores a repository's sealed credential and the id of the key that sealed it (replacing any), in the caller's transaction if any. */
  putCredential(repositoryId: string, sealed: string, keyId: string, now: string): Promise<void> {
    return credentials.putCredential(this.q, repositoryId, sealed, keyId, now);
  }
  /** RR-2: the sealed credential text, or undefined. Only the refresh path opens it. */
  getCredential(repositoryId: string): Promise<string | undefined> {
    return credentials.getCredential(this.q, repositoryId);
  }

  // Tasks ------------------------------------------------------------------------------

  /** The task and its attachments, in one transaction. */
  insertTask(t: TaskRecord): Promise<void> {
    return this.tx(({ db }) => tasks.insertTask(db, t));
  }
  /** With its repositories ordered by position. */
  getTask(id: string): Promise<TaskRecord | undefined> {
    return tasks.getTask(this.q, id);
  }
  /** `archived: true` → archivedAt set; oldest first. */
  listTasks(opts: { archived: boolean }): Promise<TaskRecord[]> {
    return tasks.listTasks(this.q, opts);
  }
  updateTask(id: string, patch: Partial<Pick<TaskRecord, "title" | "description" | "state" | "archivedAt">>, now: string): Promise<TaskRecord | undefined> {
    return this.tx(({ db }) => tasks.updateTask(db, id, patch, now));
  }
  /** The task state `from → to` only while it still is `from` (compare-and-set); undefined otherwise. */
  setTaskStateIf(id: string, from: TaskRecord["state"], to: TaskRecord["state"], now: string): Promise<TaskRecord | undefined> {
    return this.tx(({ db }) => tasks.setTaskStateIf(db, id, from, to, now));
  }
  /** Attachments, the environment with its rows, and sessions with their messages go too. */
  deleteTask(id: string): Promise<void> {
    return tasks.deleteTask(this.q, id);
  }
  /** LIVE-5: a task live or in the trash. */
  getTaskAnyState(id: string): Promise<TaskRecord | undefined> {
    return tasks.getTaskAnyState(this.q, id);
  }
  /** LIVE-5: the trash, most recently deleted first. */
  listTrash(): Promise<TaskRecord[]> {
    return tasks.listTrash(this.q);
  }
  /** LIVE-5 in one transaction: out of the trash, a not-yet-running delete or purge job cancelled (returned). */
  restoreDeletedTask(taskId: string, now: string): Promise<CleanupJobRecord | undefined> {
    return this.tx((ctx) => trash.restoreDeletedTask(ctx, taskId, now));
  }
  /** LIVE-5: the purge job of a trashed task without an active job; undefined when one exists or it was restored. */
  insertPurgeJob(job: CleanupJobRecord): Promise<CleanupJobRecord | undefined> {
    return this.tx((ctx) => trash.insertPurgeJob(ctx, job));
  }
  /** LIVE-5: trashed tasks whose purge is not scheduled yet. */
  trashWithoutPurge(): Promise<string[]> {
    return trash.trashWithoutPurge({ db: this.q, dialect: this.dialect });
  }

  // Environments -----------------------------------------------------------------------

  getEnvironment(id: string): Promise<EnvironmentRecord | undefined> {
    return envs.getEnvironment(this.q, id);
  }
  getEnvironmentByTask(taskId: string): Promise<EnvironmentRecord | undefined> {
    return envs.getEnvironmentByTask(this.q, taskId);
  }
  /** All rows, tombstones included, by position then createdAt. */
  listEnvironmentRepos(environmentId: string): Promise<EnvironmentRepoRecord[]> {
    return envs.listEnvironmentRepos(this.q, environmentId);
  }

  /**
   * SES-2 / LC-2 in one transaction: lock the task, refuse a missing (`not_found`) or
   * archived (`task_archived`) task, run the barrier, then claim the environment (none or
   * `failed` → `creating` with this session as materializer, mode "materialize"; `ready` →
   * "attach"; `creating` → `workspace_preparing`, nothing written) and insert the session
   * linked to it.
   */
  reserveLaunch(input: { taskId: string; session: SessionRecord; runnerId: string; now: string }): Promise<LaunchReservation> {
    return this.tx((ctx) => barrierWrites.reserveLaunch(ctx, this.barrier, input));
  }

  /** ENV-2/ENV-3 in one transaction (barrier checked); returns all rows after the merge. */
  mergeEnvironmentRepos(environmentId: string, results: SlotResult[], now: string): Promise<EnvironmentRepoRecord[]> {
    return this.tx((ctx) => barrierWrites.mergeEnvironmentRepos(ctx, this.barrier, environmentId, results, now));
  }

  /**
   * Compare-and-set from one of `from` to `to` (+ workspacePath when given); clears the
   * materializer. undefined when the CAS lost.
   */
  setEnvironmentStatus(
    environmentId: string,
    from: EnvironmentRecord["status"][],
    to: EnvironmentRecord["status"],
    patch: { workspacePath?: string | null },
    now: string,
  ): Promise<EnvironmentRecord | undefined> {
    return envs.setEnvironmentStatus(this.q, environmentId, from, to, patch, now);
  }
  /** ENV-4: status deleted + deletedAt; the tuple is kept. */
  tombstoneEnvironmentRepo(rowId: string, now: string): Promise<void> {
    return envs.tombstoneEnvironmentRepo(this.q, rowId, now);
  }
  /**
   * WT-7 rollback only: removes a row the same failed attempt inserted for a worktree it
   * has removed again. Removing a worktree otherwise tombstones its row (ENV-4).
   */
  deleteEnvironmentRepo(rowId: string): Promise<void> {
    return envs.deleteEnvironmentRepo(this.q, rowId);
  }
  /** The environment and its rows; its sessions stay, unlinked. */
  deleteEnvironment(environmentId: string): Promise<void> {
    return envs.deleteEnvironment(this.q, environmentId);
  }

  // Sessions ---------------------------------------------------------------------------

  insertSession(s: SessionRecord): Promise<void> {
    return sessions.insertSession(this.q, s);
  }
  getSession(id: string): Promise<SessionRecord | undefined> {
    return sessions.getSession(this.q, id);
  }
  /** Oldest first. */
  listSessions(taskId: string): Promise<SessionRecord[]> {
    return sessions.listSessions(this.q, taskId);
  }
  /** SES-1 compare-and-set; `lastError: null` clears. undefined when the CAS lost. */
  casSessionState(
    id: string,
    from: readonly SessionState[],
    to: SessionState,
    patch: Parameters<typeof sessions.casSessionState>[4],
    now: string,
  ): Promise<SessionRecord | undefined> {
    return sessions.casSessionState(this.q, id, from, to, patch, now);
  }
  /** WEB-37: compare-and-set of a session's queued follow-ups (see sessions-repo). */
  changeQueuedPrompts(
    id: string,
    change: Parameters<typeof sessions.changeQueuedPrompts>[2],
    now: string,
    whileIn?: readonly SessionState[],
  ): Promise<SessionRecord | undefined> {
    return sessions.changeQueuedPrompts(this.q, id, change, now, whileIn);
  }
  setSessionAcpId(id: string, acpSessionId: string, now: string): Promise<void> {
    return sessions.setSessionAcpId(this.q, id, acpSessionId, now);
  }

  /** Ids of the sessions in one of `states` (AG-1: start-up recovery finds the turns a restart cut). */
  listSessionIdsInStates(states: readonly SessionState[]): Promise<string[]> {
    return sessions.listSessionIdsInStates(this.q, states);
  }

  /** AG-2: what the session's agent reported (modes, config options, commands, plan) and what a person chose. */
  setSessionAgentState(id: string, state: AgentState): Promise<void> {
    return sessions.setSessionAgentState(this.q, id, state);
  }
  /** SES-7: messages go with it; the environment does not. */
  setSessionSandbox(id: string, sandbox: SessionSandbox): Promise<void> {
    return sessions.setSessionSandbox(this.q, id, sandbox);
  }

  /** SBX-2: counts one refused connection; returns the session's new total. */
  countBlockedConnection(id: string): Promise<number> {
    return sessions.countBlockedConnection(this.q, id);
  }

  deleteSession(id: string): Promise<void> {
    return sessions.deleteSession(this.q, id);
  }

  // Messages ---------------------------------------------------------------------------

  insertMessage(m: MessageRecord): Promise<void> {
    return messages.insertMessage(this.q, m);
  }
  updateMessage(id: string, patch: { text?: string; data?: unknown }): Promise<void> {
    return messages.updateMessage(this.q, id, patch);
  }
  /** Oldest first (insertion sequence). */
  listMessages(sessionId: string): Promise<MessageRecord[]> {
    return messages.listMessages(this.q, sessionId);
  }
  /** Only the `tool` messages, oldest first (start-up recovery, AG-1). */
  listToolMessages(sessionId: string): Promise<MessageRecord[]> {
    return messages.listToolMessages(this.q, sessionId);
  }

  // Agent processes --------------------------------------------------------------------

  upsertAgentProcess(p: AgentProcessRecord): Promise<void> {
    return agents.upsertAgentProcess(this.q, p);
  }
  deleteAgentProcess(sessionId: string): Promise<void> {
    return agents.deleteAgentProcess(this.q, sessionId);
  }
  listAgentProcesses(runnerId: string): Promise<AgentProcessRecord[]> {
    return agents.listAgentProcesses(this.q, runnerId);
  }
  /** The agent processes of these sessions, of every runner (a task's cleanup stops them all). */
  listAgentProcessesOfSessions(sessionIds: readonly string[]): Promise<AgentProcessRecord[]> {
    return agents.listAgentProcessesOfSessions(this.q, sessionIds);
  }

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
