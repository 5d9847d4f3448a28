import { planEnvironmentMerge, type SlotResult } from "../domain/environment-merge.js";
import { AppError, notFound } from "../domain/errors.js";
import { newId } from "../domain/ids.js";
import type { EnvironmentRecord, EnvironmentRepoRecord, SessionRecord } from "../domain/records.js";
import { applyMergeOps, getEnvironment, getEnvironmentByTask, insertEnvironment, listEnvironmentRepos, toEnvironment } from "./environments-repo.js";
import type { Ctx } from "./schema.js";
import { insertSession } from "./sessions-repo.js";
import { lockTask } from "./tasks-repo.js";
import { isUniqueViolation } from "./transaction.js";

/**
 * The LC-2 creation barrier: called inside every transaction that creates a session, an
 * environment or an environment row, after the task row is locked. Throws
 * `task_cleanup_in_progress` to refuse. `trx` is the open transaction (a Kysely<DB>).
 */
export type CreationBarrier = (trx: unknown, taskId: string) => Promise<void>;

export interface LaunchReservation {
  mode: "materialize" | "attach";
  environment: EnvironmentRecord;
  session: SessionRecord;
}

/**
 * SES-2 / LC-2; the caller runs this inside one transaction. Locks the task, checks it and
 * the barrier, claims or reuses the environment, then inserts the session linked to it.
 */
export async function reserveLaunch(
  ctx: Ctx,
  barrier: CreationBarrier,
  input: { taskId: string; session: SessionRecord; runnerId: string; now: string },
): Promise<LaunchReservation> {
  const { db } = ctx;
  const { taskId, runnerId, now } = input;
  const task = await lockTask(ctx, taskId);
  if (!task) throw notFound("task", taskId);
  if (task.archived_at !== null) throw new AppError("task_archived", `task ${taskId} is archived`, { taskId });
  await barrier(db, taskId);

  const preparing = (env?: EnvironmentRecord): AppError =>
    new AppError("workspace_preparing", `the workspace of task ${taskId} is being prepared`, {
      taskId,
      ...(env && { environmentId: env.id, materializerSessionId: env.materializerSessionId }),
    });

  let environment = await getEnvironmentByTask(db, taskId);
  let mode: LaunchReservation["mode"];
  if (!environment) {
    environment = {
      id: newId("env"),
      taskId,
      status: "creating",
      workspacePath: null,
      runnerId,
      materializerSessionId: input.session.id,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await insertEnvironment(db, environment);
    } catch (e) {
      // ENV-1's unique index is the backstop should two creators ever get past the lock.
      if (isUniqueViolation(e)) throw preparing();
      throw e;
    }
    mode = "materialize";
  } else if (environment.status === "creating") {
    throw preparing(environment);
  } else if (environment.status === "failed" || (await hasTombstonedRows(db, environment.id))) {
    // A `ready` environment with tombstoned rows was (partly) archived: the next session
    // materializes again, recreating those worktrees on their branches (LC-5).
    const row = await db
      .updateTable("task_environments")
      .set({ status: "creating", materializer_session_id: input.session.id, runner_id: runnerId, updated_at: now })
      .where("id", "=", environment.id)
      .where("status", "=", environment.status)
      .returningAll()
      .executeTakeFirstOrThrow();
    environment = toEnvironment(row);
    mode = "materialize";
  } else {
    mode = "attach";
  }

  const session: SessionRecord = { ...input.session, taskEnvironmentId: environment.id };
  await insertSession(db, session);
  return { mode, environment, session };
}

/**
 * ENV-2 / ENV-3; the caller runs this inside one transaction. The merge rule itself is
 * `planEnvironmentMerge` (domain); this only loads, locks, checks the barrier and applies.
 */
export async function mergeEnvironmentRepos(
  ctx: Ctx,
  barrier: CreationBarrier,
  environmentId: string,
  results: readonly SlotResult[],
  now: string,
): Promise<EnvironmentRepoRecord[]> {
  const { db } = ctx;
  const env = await getEnvironment(db, environmentId);
  if (!env) throw notFound("environment", environmentId);
  await lockTask(ctx, env.taskId);
  await barrier(db, env.taskId);
  const rows = await listEnvironmentRepos(db, environmentId);
  await applyMergeOps(db, environmentId, planEnvironmentMerge(rows, results), now);
  return listEnvironmentRepos(db, environmentId);
}

/** True when some row of the environment is tombstoned (ENV-4): its worktree must be recreated. */
export async function hasTombstonedRows(db: Ctx["db"], environmentId: string): Promise<boolean> {
  const row = await db
    .selectFrom("task_environment_repos")
    .select("id")
    .where("environment_id", "=", environmentId)
    .where("status", "=", "deleted")
    .executeTakeFirst();
  return row !== undefined;
}
