import type { Kysely } from "kysely";
import type { DB } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * Placement: the labels a task's environment requires (`POST /tasks` `runnerLabels`)
 * and the runner that registered each repository (a local path exists on that runner's disk
 * only). Separate tables so older rows need no rewrite: a task without a row requires no label;
 * a repository without a row (registered before this migration) is available on every runner.
 */
async function up(db: Kysely<DB>): Promise<void> {
  await db.schema
    .createTable("task_runner_labels")
    .addColumn("task_id", "text", (c) => c.primaryKey().references("tasks.id").onDelete("cascade"))
    .addColumn("labels", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("repository_runners")
    .addColumn("repository_id", "text", (c) => c.primaryKey().references("repositories.id").onDelete("cascade"))
    .addColumn("runner_id", "text", (c) => c.notNull())
    .execute();
}

export const m013Placement: Migration = { name: "013-placement", up };
