import type { Selectable } from "kysely";
import type { WorkflowDefinition, WorkflowRecord } from "../domain/workflow.js";
import { ACTIVE_RUN_STATES, type CommandResult, type WorkflowEntryRecord, type WorkflowRunRecord, type WorkflowRunState } from "../domain/workflow-run.js";
import type { Db, WorkflowRunsTable, WorkflowsTable } from "./schema.js";

function toWorkflow(r: Selectable<WorkflowsTable>): WorkflowRecord {
  return {
    name: r.name,
    repositoryId: r.repository_id,
    version: Number(r.version),
    source: r.source,
    definition: JSON.parse(r.definition) as WorkflowDefinition,
    stopped: Number(r.stopped) === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toRun(r: Selectable<WorkflowRunsTable>): WorkflowRunRecord {
  return {
    id: r.id,
    idemKey: r.idem_key,
    taskId: r.task_id,
    entryId: r.entry_id,
    workflow: r.workflow,
    version: Number(r.version),
    step: r.step,
    actionIndex: Number(r.action_index),
    action: JSON.parse(r.action) as WorkflowRunRecord["action"],
    cause: r.cause,
    state: r.state as WorkflowRunState,
    runnerId: r.runner_id,
    attempts: Number(r.attempts),
    outcome: r.outcome,
    sessionId: r.session_id,
    result: r.result ? (JSON.parse(r.result) as CommandResult) : null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** WF-1/WF-2 persistence (migration 026). Reached as `store.workflows`; every change is compare-and-set. */
export class WorkflowStore {
  constructor(private readonly db: () => Db) {}

  async list(): Promise<WorkflowRecord[]> {
    return (await this.db().selectFrom("workflows").selectAll().orderBy("name").execute()).map(toWorkflow);
  }

  async get(name: string): Promise<WorkflowRecord | undefined> {
    const r = await this.db().selectFrom("workflows").selectAll().where("name", "=", name).executeTakeFirst();
    return r && toWorkflow(r);
  }

  /**
   * Writes version `expected + 1` (insert when `expected` is 0), compare-and-set on the stored
   * version: undefined when another write got there first.
   */
  async put(w: Omit<WorkflowRecord, "version" | "stopped" | "createdAt">, expected: number): Promise<WorkflowRecord | undefined> {
    const values = { repository_id: w.repositoryId, source: w.source, definition: JSON.stringify(w.definition), updated_at: w.updatedAt };
    if (expected === 0) {
      const row = await this.db()
        .insertInto("workflows")
        .values({ name: w.name, version: 1, stopped: 0, created_at: w.updatedAt, ...values })
        .onConflict((oc) => oc.column("name").doNothing())
        .returningAll()
        .executeTakeFirst();
      return row && toWorkflow(row);
    }
    const row = await this.db()
      .updateTable("workflows")
      .set({ ...values, version: expected + 1 })
      .where("name", "=", w.name)
      .where("version", "=", expected)
      .returningAll()
      .executeTakeFirst();
    return row && toWorkflow(row);
  }

  async remove(name: string): Promise<boolean> {
    const r = await this.db().deleteFrom("workflows").where("name", "=", name).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async setStopped(name: string, stopped: boolean, now: string): Promise<WorkflowRecord | undefined> {
    const row = await this.db()
      .updateTable("workflows")
      .set({ stopped: stopped ? 1 : 0, updated_at: now })
      .where("name", "=", name)
      .returningAll()
      .executeTakeFirst();
    return row && toWorkflow(row);
  }

  // Per-task stop switch ------------------------------------------------------------------

  async setTaskStopped(taskId: string, stopped: boolean, now: string): Promise<void> {
    await this.db()
      .insertInto("workflow_task_stops")
      .values({ task_id: taskId, stopped: stopped ? 1 : 0, updated_at: now })
      .onConflict((oc) => oc.column("task_id").doUpdateSet({ stopped: stopped ? 1 : 0, updated_at: now }))
      .execute();
  }

  async isTaskStopped(taskId: string): Promise<boolean> {
    const r = await this.db().selectFrom("workflow_task_stops").select("stopped").where("task_id", "=", taskId).executeTakeFirst();
    return Number(r?.stopped ?? 0) === 1;
  }

  // Step entries ---------------------------------------------------------------------------

  async latestEntry(taskId: string): Promise<WorkflowEntryRecord | undefined> {
    const r = await this.db().selectFrom("workflow_entries").selectAll().where("task_id", "=", taskId).orderBy("seq", "desc").limit(1).executeTakeFirst();
    return r && { id: r.id, taskId: r.task_id, seq: Number(r.seq), step: r.step, workflow: r.workflow, version: Number(r.version), createdAt: r.created_at };
  }

  /** The entry with the next `seq`; false when another process recorded that `seq` first. */
  async addEntry(e: WorkflowEntryRecord): Promise<boolean> {
    const r = await this.db()
      .insertInto("workflow_entries")
      .values({ id: e.id, task_id: e.taskId, seq: e.seq, step: e.step, workflow: e.workflow, version: e.version, created_at: e.createdAt })
      .onConflict((oc) => oc.columns(["task_id", "seq"]).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  // Runs -----------------------------------------------------------------------------------

  /** Inserts the run unless its idempotency key exists; the new run, or undefined. */
  async enqueue(r: WorkflowRunRecord): Promise<WorkflowRunRecord | undefined> {
    const row = await this.db()
      .insertInto("workflow_runs")
      .values({
        id: r.id,
        idem_key: r.idemKey,
        task_id: r.taskId,
        entry_id: r.entryId,
        workflow: r.workflow,
        version: r.version,
        step: r.step,
        action_index: r.actionIndex,
        action: JSON.stringify(r.action),
        cause: r.cause,
        state: r.state,
        runner_id: null,
        attempts: 0,
        outcome: null,
        session_id: null,
        result: null,
        created_at: r.createdAt,
        updated_at: r.updatedAt,
      })
      .onConflict((oc) => oc.column("idem_key").doNothing())
      .returningAll()
      .executeTakeFirst();
    return row && toRun(row);
  }

  async getRun(id: string): Promise<WorkflowRunRecord | undefined> {
    const r = await this.db().selectFrom("workflow_runs").selectAll().where("id", "=", id).executeTakeFirst();
    return r && toRun(r);
  }

  /** Oldest first. */
  async listRuns(taskId: string): Promise<WorkflowRunRecord[]> {
    return (
      await this.db()
        .selectFrom("workflow_runs")
        .selectAll()
        .where("task_id", "=", taskId)
        .orderBy("created_at")
        .orderBy("action_index")
        .orderBy("id")
        .execute()
    ).map(toRun);
  }

  async runsOfEntry(entryId: string): Promise<WorkflowRunRecord[]> {
    return (await this.db().selectFrom("workflow_runs").selectAll().where("entry_id", "=", entryId).orderBy("action_index").execute()).map(toRun);
  }

  /** Every pending run, oldest first (the worker's queue). */
  async pendingRuns(): Promise<WorkflowRunRecord[]> {
    return (await this.db().selectFrom("workflow_runs").selectAll().where("state", "=", "pending").orderBy("created_at").orderBy("action_index").execute()).map(
      toRun,
    );
  }

  /** This runner's claimed runs (after a crash: the ones to finish or redo). */
  async runningRuns(runnerId: string): Promise<WorkflowRunRecord[]> {
    return (
      await this.db().selectFrom("workflow_runs").selectAll().where("state", "=", "running").where("runner_id", "=", runnerId).orderBy("created_at").execute()
    ).map(toRun);
  }

  /** The running run that waits for this session's turn, if any. */
  async runOfSession(sessionId: string): Promise<WorkflowRunRecord | undefined> {
    const r = await this.db().selectFrom("workflow_runs").selectAll().where("session_id", "=", sessionId).where("state", "=", "running").executeTakeFirst();
    return r && toRun(r);
  }

  /** WF-2 the one claim: pending → running for this runner (attempts + 1). */
  async claim(id: string, runnerId: string, now: string): Promise<WorkflowRunRecord | undefined> {
    const row = await this.db()
      .updateTable("workflow_runs")
      .set((eb) => ({ state: "running", runner_id: runnerId, attempts: eb("attempts", "+", 1), updated_at: now }))
      .where("id", "=", id)
      .where("state", "=", "pending")
      .returningAll()
      .executeTakeFirst();
    return row && toRun(row);
  }

  /** Records the session a run starts before it is started (set once), so a redo finds it. */
  async planSession(id: string, sessionId: string, now: string): Promise<WorkflowRunRecord | undefined> {
    await this.db()
      .updateTable("workflow_runs")
      .set({ session_id: sessionId, updated_at: now })
      .where("id", "=", id)
      .where("state", "=", "running")
      .where("session_id", "is", null)
      .execute();
    return this.getRun(id);
  }

  /** Ends a run, compare-and-set from `from` (running unless said); a `run` command's result with it. */
  async finish(
    id: string,
    state: WorkflowRunState,
    outcome: string | null,
    now: string,
    from: readonly WorkflowRunState[] = ["running"],
    result?: CommandResult,
  ): Promise<WorkflowRunRecord | undefined> {
    const row = await this.db()
      .updateTable("workflow_runs")
      .set({ state, outcome, updated_at: now, ...(result ? { result: JSON.stringify(result) } : {}) })
      .where("id", "=", id)
      .where("state", "in", from)
      .returningAll()
      .executeTakeFirst();
    return row && toRun(row);
  }

  /**
   * WF-2: a person acted, a stop switch, or the task entered another step: the active runs of a
   * task (or of a workflow) → cancelled; with `exceptEntry`, only the runs of other step entries
   * (a trigger's runs belong to no entry and outlive a move). Moves already running
   * are left to finish (they are what moved the task).
   */
  async cancelRuns(
    filter: { taskId?: string; workflow?: string | undefined; exceptEntry?: string },
    outcome: string,
    now: string,
  ): Promise<WorkflowRunRecord[]> {
    let q = this.db().updateTable("workflow_runs").set({ state: "cancelled", outcome, updated_at: now }).where("state", "in", ACTIVE_RUN_STATES);
    if (filter.taskId !== undefined) q = q.where("task_id", "=", filter.taskId);
    if (filter.workflow !== undefined) q = q.where("workflow", "=", filter.workflow);
    if (filter.exceptEntry !== undefined) {
      const keep = filter.exceptEntry;
      q = q
        .where("entry_id", "is not", null)
        .where("entry_id", "!=", keep)
        .where((eb) => eb.not(eb.and([eb("state", "=", "running"), eb("action", "like", '{"action":"move"%')])));
    }
    return (await q.returningAll().execute()).map(toRun);
  }

  /** Runs of the task for one trigger kind (e.g. `checks_failed` rounds). */
  async countRuns(taskId: string, cause: string): Promise<number> {
    const r = await this.db()
      .selectFrom("workflow_runs")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("task_id", "=", taskId)
      .where("cause", "=", cause)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }
}
