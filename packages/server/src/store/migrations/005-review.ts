import type { Kysely } from "kysely";
import type { DB, StoreDialect } from "../schema.js";
import type { Migration } from "./migration.js";

/**
 * Review to land: review comments, pull requests, and a repository's provider API URL.
 * Both tables cascade from their task (a deleted task's review is gone with it); a comment's
 * session is a soft pointer (deleting a session keeps the comment and where it was sent).
 * One pull request per task and repository: the task's branch is pushed once per repository.
 */
async function up(db: Kysely<DB>, dialect: StoreDialect): Promise<void> {
  const bool = dialect === "sqlite" ? "integer" : "boolean";
  await db.schema.alterTable("repositories").addColumn("api_url", "text").execute();

  await db.schema
    .createTable("review_comments")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("task_id", "text", (c) => c.notNull().references("tasks.id").onDelete("cascade"))
    .addColumn("repository_id", "text", (c) => c.notNull().references("repositories.id"))
    .addColumn("path", "text", (c) => c.notNull())
    .addColumn("line", "integer", (c) => c.notNull())
    .addColumn("side", "text", (c) => c.notNull())
    .addColumn("body", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("commit_sha", "text", (c) => c.notNull())
    .addColumn("line_text", "text", (c) => c.notNull())
    .addColumn("session_id", "text")
    .addColumn("sent_turn", "integer")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("review_comments_task_ix").on("review_comments").columns(["task_id", "created_at"]).execute();

  await db.schema
    .createTable("pull_requests")
    .addColumn("task_id", "text", (c) => c.notNull().references("tasks.id").onDelete("cascade"))
    .addColumn("repository_id", "text", (c) => c.notNull().references("repositories.id"))
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("number", "integer", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("draft", bool, (c) => c.notNull())
    .addColumn("checks", "text", (c) => c.notNull())
    .addColumn("review_decision", "text")
    .addColumn("head_commit", "text", (c) => c.notNull())
    .addColumn("branch", "text", (c) => c.notNull())
    // The commit the host had for the branch after our last push: the only lease a later
    // --force-with-lease (after a rebase) may use.
    .addColumn("pushed_commit", "text", (c) => c.notNull())
    // JSON {url → etag} of the provider answers the last refresh saw (conditional requests).
    .addColumn("etags", "text")
    .addColumn("checked_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("pull_requests_pk", ["task_id", "repository_id"])
    .execute();
}

export const m005Review: Migration = { name: "005-review", up };
