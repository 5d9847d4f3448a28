import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * WF-1/WF-2: workflows and their runs.
 * - `workflows`: the current version of each named workflow (global when `repository_id` is
 *   null); `version` is bumped by compare-and-set on every accepted PUT; `source` the YAML,
 *   `definition` the validated JSON; `stopped` the per-workflow stop switch (0/1).
 * - `workflow_entries`: one row per time a task entered a step, `seq` per task, unique: two
 *   runners that both notice a move record one entry.
 * - `workflow_runs`: one row per automated action, `idem_key` unique (task, workflow version,
 *   step entry, action index — or a trigger's own key): the durable job that runs exactly
 *   once. `session_id` is the session it started or prompted (planned before the launch).
 * - `workflow_task_stops`: the per-task stop switch.
 * No foreign keys to tasks on runs: the history outlives a purged task like the usage ledger.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema
    .createTable("workflows")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("repository_id", "text")
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("definition", "text", (c) => c.notNull())
    .addColumn("stopped", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("workflow_entries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("step", "text", (c) => c.notNull())
    .addColumn("workflow", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("workflow_entries_task_seq_uq", ["task_id", "seq"])
    .execute();
  await db.schema
    .createTable("workflow_runs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("idem_key", "text", (c) => c.notNull().unique())
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("entry_id", "text")
    .addColumn("workflow", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("step", "text", (c) => c.notNull())
    .addColumn("action_index", "integer", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("cause", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("runner_id", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("outcome", "text")
    .addColumn("session_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("workflow_runs_task_ix").on("workflow_runs").columns(["task_id", "created_at"]).execute();
  await db.schema.createIndex("workflow_runs_state_ix").on("workflow_runs").columns(["state", "created_at"]).execute();
  await db.schema.createIndex("workflow_runs_session_ix").on("workflow_runs").columns(["session_id"]).execute();
  await db.schema
    .createTable("workflow_task_stops")
    .addColumn("task_id", "text", (c) => c.primaryKey())
    .addColumn("stopped", "integer", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
}

export const m026Workflows: Migration = { name: "026-workflows", up };
