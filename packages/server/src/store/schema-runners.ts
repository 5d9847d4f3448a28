/** Kysely table types (schema.ts): Runners and placement (ST-3). */

/** (migration 012): one row per runner, refreshed by its heartbeat. */
export interface RunnersTable {
  id: string;
  host: string;
  url: string;
  /** JSON array of strings. */
  labels: string;
  max_agents: number | null;
  live_agents: number;
  version: string;
  heartbeat_ms: number;
  started_at: string;
  last_seen_at: string;
  stopped_at: string | null;
  /** Migration 014: credentialKeyId of the runner's credential key; null before that migration. */
  credential_key_id: string | null;
}

/** Placement (migration 013): labels a task requires, JSON array. */
export interface TaskRunnerLabelsTable {
  task_id: string;
  labels: string;
}

/** Placement (migration 013): the runner that registered a repository. */
export interface RepositoryRunnersTable {
  repository_id: string;
  runner_id: string;
}
