import { StoreCore } from "./store-core.js";
import type { CleanupJobRecord } from "../domain/cleanup-job.js";
import type { SlotResult } from "../domain/environment-merge.js";
import type { EnvironmentRecord, EnvironmentRepoRecord, RepositoryRecord, SessionRecord, TaskRecord } from "../domain/records.js";
import * as barrierWrites from "./barrier-writes.js";
import type { LaunchReservation } from "./barrier-writes.js";
import * as credentials from "./credentials-repo.js";
import * as envs from "./environments-repo.js";
import * as repos from "./repositories-repo.js";
import { deleteRepositoryIfUnused } from "./repository-delete.js";
import * as tasks from "./tasks-repo.js";
import * as trash from "./trash-repo.js";

/** Repositories, tasks and environments (the `Store` facade's first layer; see store.ts). */
export abstract class StoreRecords extends StoreCore {
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
}
