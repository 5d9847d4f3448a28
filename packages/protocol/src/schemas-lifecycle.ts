import { z } from "zod";

/** Cleanup jobs, the doctor's audit and the health answer of the HTTP API. Fields may be added; none may be renamed (clients depend on the names). */

/** `purge` (LIVE-5): the durable end of a deleted task once its trash retention has passed. */
export const CleanupTrigger = z.enum(["archive", "delete", "environment_reset", "purge"]);
export const CleanupJobState = z.enum(["prepared", "pending", "running", "retry_wait", "succeeded", "failed", "cancelled"]);

/** A lifecycle cleanup job (LC-2): archive, delete or environment reset of one task. */
export const CleanupJob = z.object({
  id: z.string(),
  taskId: z.string(),
  trigger: CleanupTrigger,
  state: CleanupJobState,
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  /** When a `pending`/`retry_wait` job is due next (ISO time), else null. */
  nextRunAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type CleanupJob = z.infer<typeof CleanupJob>;

/** `202` answer of archive, delete and environment reset. */
export const CleanupAccepted = z.object({ jobId: z.string() });
export type CleanupAccepted = z.infer<typeof CleanupAccepted>;

/** One finding of `GET /doctor` (read-only audit). */
export const DoctorFinding = z.object({
  kind: z.enum(["orphan", "missing", "mismatch", "unregistered", "rebase_in_progress", "tampered"]),
  message: z.string(),
  path: z.string(),
  taskId: z.string().optional(),
  repositoryId: z.string().optional(),
  expected: z.string().optional(),
  actual: z.string().optional(),
});
export type DoctorFinding = z.infer<typeof DoctorFinding>;

export const DoctorReport = z.object({
  ok: z.boolean(),
  checked: z.object({ environmentRows: z.number().int(), repositories: z.number().int(), taskDirectories: z.number().int() }),
  findings: z.array(DoctorFinding),
  /** Environments of other runners, not audited here (their files are on that runner's disk). */
  skipped: z.array(z.object({ taskId: z.string(), runnerId: z.string() })).optional(),
});
export type DoctorReport = z.infer<typeof DoctorReport>;

export const Health = z.object({
  status: z.literal("ok"),
  version: z.string(),
  database: z.enum(["sqlite", "postgres"]),
  runnerId: z.string(),
});
export type Health = z.infer<typeof Health>;
