import { z } from "zod";

/** Shapes of CONTRACT.md. Fields may be added; none may be renamed. */

export const TaskState = z.enum(["todo", "in_progress", "review", "done", "failed"]);
export const SessionState = z.enum(["created", "starting", "running", "waiting_for_input", "completed", "failed", "cancelled"]);
export const EnvironmentStatus = z.enum(["creating", "ready", "failed"]);
export const EnvironmentRepositoryStatus = z.enum(["active", "deleted"]);
export const MessageRole = z.enum(["user", "agent", "thought", "tool", "plan", "system"]);
export const CredentialPolicy = z.enum(["managed", "executor"]);
export const PermissionPolicy = z.enum(["auto_approve", "ask"]);

export const Repository = z.object({
  id: z.string(),
  name: z.string(),
  path: z.string(),
  url: z.string().optional(),
  /** The provider's REST API base for pull requests (issue 11); absent = the provider's public API. */
  apiUrl: z.string().optional(),
  provider: z.string(),
  defaultBranch: z.string(),
  pullBeforeWorktree: z.boolean(),
  credentialPolicy: CredentialPolicy,
  hasCredential: z.boolean(),
  branchTemplate: z.string(),
  copyFiles: z.array(z.string()).optional(),
  setupScript: z.string().nullable().optional(),
  createdAt: z.string(),
});
export type Repository = z.infer<typeof Repository>;

export const TaskRepository = z.object({
  repositoryId: z.string(),
  baseBranch: z.string(),
  checkoutBranch: z.string().optional(),
  prNumber: z.number().int().optional(),
  position: z.number().int(),
});
export type TaskRepository = z.infer<typeof TaskRepository>;

export const Task = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  state: TaskState,
  archivedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  repositories: z.array(TaskRepository),
});
export type Task = z.infer<typeof Task>;

export const LastError = z.object({
  code: z.string(),
  message: z.string(),
  repositoryId: z.string().optional(),
  at: z.string(),
});
export type LastError = z.infer<typeof LastError>;

export const Session = z.object({
  id: z.string(),
  taskId: z.string(),
  agent: z.string(),
  state: SessionState,
  taskEnvironmentId: z.string().nullable(),
  lastError: LastError.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Session = z.infer<typeof Session>;

export const Message = z.object({
  id: z.string(),
  sessionId: z.string(),
  role: MessageRole,
  text: z.string(),
  data: z.unknown().optional(),
  createdAt: z.string(),
});
export type Message = z.infer<typeof Message>;

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
});
export type EnvironmentRepository = z.infer<typeof EnvironmentRepository>;

export const Environment = z.object({
  id: z.string(),
  taskId: z.string(),
  status: EnvironmentStatus,
  workspacePath: z.string().nullable(),
  runnerId: z.string(),
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

export const FileStatus = z.enum(["added", "modified", "deleted", "renamed", "untracked", "conflicted", "typechange"]);
export const ChangedFile = z.object({
  path: z.string(),
  oldPath: z.string().optional(),
  status: FileStatus,
  staged: z.boolean(),
  unstaged: z.boolean(),
  additions: z.number().int(),
  deletions: z.number().int(),
  binary: z.boolean(),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

export const RepositoryChanges = z.object({
  repositoryId: z.string(),
  /** Which slot, when one repository is attached on several branches (WT-8). */
  worktreeId: z.string().optional(),
  branchSlug: z.string().optional(),
  worktreePath: z.string(),
  branch: z.string(),
  baseBranch: z.string(),
  mergeBase: z.string().nullable(),
  ahead: z.number().int(),
  behind: z.number().int(),
  files: z.array(ChangedFile),
  truncated: z.boolean().optional(),
  error: z.string().optional(),
  /** The worktree directory is gone (WT-5): `POST /tasks/:id/environment/restore` recreates it. */
  missing: z.boolean().optional(),
});
export type RepositoryChanges = z.infer<typeof RepositoryChanges>;

export const Changes = z.object({ taskId: z.string(), repositories: z.array(RepositoryChanges) });
export type Changes = z.infer<typeof Changes>;

export const FileDiff = z.object({
  repositoryId: z.string(),
  path: z.string(),
  patch: z.string(),
  binary: z.boolean(),
  truncated: z.boolean(),
});
export type FileDiff = z.infer<typeof FileDiff>;

export const AgentProfile = z.object({
  name: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  env: z.array(z.string()),
  permissionPolicy: PermissionPolicy,
  builtIn: z.boolean(),
});
export type AgentProfile = z.infer<typeof AgentProfile>;

export const CleanupTrigger = z.enum(["archive", "delete", "environment_reset"]);
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
  kind: z.enum(["orphan", "missing", "mismatch", "unregistered", "rebase_in_progress"]),
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
});
export type DoctorReport = z.infer<typeof DoctorReport>;

export const Health = z.object({
  status: z.literal("ok"),
  version: z.string(),
  database: z.enum(["sqlite", "postgres"]),
  runnerId: z.string(),
});
export type Health = z.infer<typeof Health>;

// ---- request bodies ------------------------------------------------------------------------

const name = z.string().trim().min(1).max(200);
const refName = z.string().min(1).max(250);

export const CreateRepositoryBody = z
  .object({
    path: z.string().min(1).max(4096).optional(),
    url: z.string().min(1).max(4096).optional(),
    provider: z.string().min(1).max(64).optional(),
    credential: z.object({ token: z.string().min(1).max(4096), username: z.string().max(256).optional() }).strict().optional(),
    apiUrl: z.string().min(1).max(4096).optional(),
    name: name.optional(),
    defaultBranch: refName.optional(),
    pullBeforeWorktree: z.boolean().optional(),
    branchTemplate: z.string().min(1).max(200).optional(),
    credentialPolicy: CredentialPolicy.optional(),
    copyFiles: z.array(z.string().min(1).max(500)).max(100).optional(),
    setupScript: z.string().min(1).max(20_000).nullable().optional(),
  })
  .strict()
  .refine((b) => (b.path === undefined) !== (b.url === undefined), { message: "give exactly one of path or url", path: ["path"] });
export type CreateRepositoryBody = z.infer<typeof CreateRepositoryBody>;

/** `PATCH /repositories/:id`: checkout settings (WT-9); absent fields stay as they are. */
export const PatchRepositoryBody = z
  .object({
    defaultBranch: refName.optional(),
    pullBeforeWorktree: z.boolean().optional(),
    branchTemplate: z.string().min(1).max(200).optional(),
    copyFiles: z.array(z.string().min(1).max(500)).max(100).optional(),
    setupScript: z.string().min(1).max(20_000).nullable().optional(),
  })
  .strict();
export type PatchRepositoryBody = z.infer<typeof PatchRepositoryBody>;

export const TaskRepositoryInput = z
  .object({
    repositoryId: z.string().min(1).max(100),
    baseBranch: refName.optional(),
    checkoutBranch: refName.optional(),
    prNumber: z.number().int().positive().optional(),
  })
  .strict();

export const CreateTaskBody = z
  .object({
    title: z.string().trim().min(1).max(500),
    description: z.string().max(100_000).optional(),
    repositories: z.array(TaskRepositoryInput).min(1).max(20),
  })
  .strict();
export type CreateTaskBody = z.infer<typeof CreateTaskBody>;

export const PatchTaskBody = z
  .object({
    title: z.string().trim().min(1).max(500).optional(),
    description: z.string().max(100_000).optional(),
    state: TaskState.optional(),
  })
  .strict();
export type PatchTaskBody = z.infer<typeof PatchTaskBody>;

export const CreateSessionBody = z
  .object({ agent: z.string().min(1).max(100).optional(), prompt: z.string().max(1_000_000).optional() })
  .strict();
export type CreateSessionBody = z.infer<typeof CreateSessionBody>;

/** `POST /sessions/:id/prompt`: text, review comments to compose into it (issue 11), or both. */
export const PromptBody = z
  .object({ prompt: z.string().min(1).max(1_000_000).optional(), commentIds: z.array(z.string().min(1).max(100)).min(1).max(500).optional() })
  .strict()
  .refine((b) => b.prompt !== undefined || b.commentIds !== undefined, { message: "give prompt or commentIds", path: ["prompt"] });
export type PromptBody = z.infer<typeof PromptBody>;
