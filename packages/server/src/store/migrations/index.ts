import { m001Initial } from "./001-initial.js";
import { m002CleanupJobs } from "./002-cleanup-jobs.js";
import { m003Credentials } from "./003-credentials.js";
import { m005Review } from "./005-review.js";
import type { Migration } from "./migration.js";

/** Every migration, in the order they are applied. Append only. */
export const MIGRATIONS: readonly Migration[] = [m001Initial, m002CleanupJobs, m003Credentials, m005Review];

export type { Migration } from "./migration.js";
