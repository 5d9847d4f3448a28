import { z } from "zod";

/** Task environments and their worktree slots of the HTTP API. Fields may be added; none may be renamed (clients depend on the names). */

export const EnvironmentStatus = z.enum(["creating", "ready", "failed"]);
export type EnvironmentStatus = z.infer<typeof EnvironmentStatus>;
export const EnvironmentRepositoryStatus = z.enum(["active", "deleted"]);

/**
 * What is on disk at a slot's recorded worktree path (WT-5, CHG-4, seed 000): `ok` the recorded
 * worktree; `missing` nothing there (recreated in place by the next prompt, resume, new session
 * or `grove task restore`); `foreign` a directory that is not the recorded worktree (never
 * overwritten); `no_identity` the row has no worktree tuple (fails closed, ENV-5); `tampered` the
 * worktree's `.git` no longer points at its recorded git dir (SBX-4: `workspace_tampered`, nothing
 * runs in it until `POST /tasks/:id/environment/restore` writes the link back).
 */
export const WorktreeState = z.enum(["ok", "missing", "foreign", "no_identity", "tampered"]);
export type WorktreeState = z.infer<typeof WorktreeState>;

export const EnvironmentRepository = z.object({
  repositoryId: z.string(),
  branchSlug: z.string(),
  worktreeId: z.string().nullable(),
  worktreePath: z.string().nullable(),
  worktreeBranch: z.string().nullable(),
  baseBranch: z.string(),
  position: z.number().int(),
  status: EnvironmentRepositoryStatus,
  errorMessage: z.string().nullable(),
  /** Projected on-disk state of an active row (GET /tasks/:id/environment; absent elsewhere). */
  worktreeState: WorktreeState.optional(),
  /** What fixes a state other than `ok` (e.g. `grove task restore <taskId>`). */
  action: z.string().optional(),
});
export type EnvironmentRepository = z.infer<typeof EnvironmentRepository>;

export const Environment = z.object({
  id: z.string(),
  taskId: z.string(),
  status: EnvironmentStatus,
  workspacePath: z.string().nullable(),
  runnerId: z.string(),
  /** Whether the environment's runner is online (GET /tasks/:id/environment). */
  runnerState: z.enum(["online", "offline"]).optional(),
  repositories: z.array(EnvironmentRepository),
});
export type Environment = z.infer<typeof Environment>;

export const WorkspaceInfo = z.object({
  taskId: z.string(),
  sessionId: z.string(),
  taskEnvironmentId: z.string(),
  workspacePath: z.string(),
  repositories: z.array(EnvironmentRepository),
});
export type WorkspaceInfo = z.infer<typeof WorkspaceInfo>;
