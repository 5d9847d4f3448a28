import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * WF-2.13: what a `run` action's command did, on its run: `workflow_runs.result`, JSON
 * `{exitCode, timedOut, output}` (output: a bounded excerpt). Null for every other action.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema.alterTable("workflow_runs").addColumn("result", "text").execute();
}

export const m030WorkflowRunResult: Migration = { name: "030-workflow-run-result", up };
