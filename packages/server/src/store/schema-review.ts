import type { DbBool } from "./schema-columns.js";

/** Kysely table types (schema.ts): Review comments, pull requests and the board's diff totals. */

/** (migration 005): a review comment anchored to a line (docs/specs/review.md). */
export interface ReviewCommentsTable {
  id: string;
  task_id: string;
  repository_id: string;
  path: string;
  line: number;
  side: string;
  body: string;
  state: string;
  commit_sha: string;
  line_text: string;
  session_id: string | null;
  sent_turn: number | null;
  created_at: string;
  updated_at: string;
}

/** (migration 005): the pull request of a task's branch in one repository. */
export interface PullRequestsTable {
  task_id: string;
  repository_id: string;
  provider: string;
  number: number;
  url: string;
  state: string;
  draft: DbBool;
  checks: string;
  review_decision: string | null;
  head_commit: string;
  branch: string;
  pushed_commit: string;
  etags: string | null;
  checked_at: string | null;
  created_at: string;
  updated_at: string;
}

/** (migration 006): totals of a task's last computed Changes, read by the board's summaries. */
export interface TaskDiffStatsTable {
  task_id: string;
  files: number;
  additions: number;
  deletions: number;
  updated_at: string;
}
