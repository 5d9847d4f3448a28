import { z } from "zod";
import { SessionUsage, TaskBudget } from "./usage.js";

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
  /** The provider's REST API base for pull requests; absent = the provider's public API. */
  apiUrl: z.string().optional(),
  provider: z.string(),
  defaultBranch: z.string(),
  pullBeforeWorktree: z.boolean(),
  credentialPolicy: CredentialPolicy,
  hasCredential: z.boolean(),
  branchTemplate: z.string(),
  copyFiles: z.array(z.string()).optional(),
  /** WT-11: directories checked out in new worktrees (git's cone mode); empty = the whole tree. */
  sparseCheckout: z.array(z.string()).optional(),
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

/** MCP-2: an agent's latest `report_progress` of a task: its status line and plan items. */
export const TaskProgress = z.object({
  status: z.string(),
  plan: z.array(z.object({ content: z.string(), status: z.enum(["pending", "in_progress", "completed"]) })).nullable(),
  updatedAt: z.string(),
});
export type TaskProgress = z.infer<typeof TaskProgress>;

export const Task = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  state: TaskState,
  archivedAt: z.string().nullable(),
  /** LIVE-5: when the task went to the trash; null (or absent) for a task that is not deleted. */
  deletedAt: z.string().nullable().optional(),
  /** MCP-3: the parent task of a subtask (created by an agent's `subtask_create`); absent otherwise. */
  parentId: z.string().nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  repositories: z.array(TaskRepository),
  /**
   * (GET /tasks, GET /tasks/:id; absent from task.* event frames): the runner holding
   * the task's environment; null before one exists.
   */
  runnerId: z.string().nullable().optional(),
  /** (GET /tasks, GET /tasks/:id): that runner's state, computed at read time from its heartbeat; null before an environment exists. */
  runnerState: z.enum(["online", "offline"]).nullable().optional(),
  /** (GET /tasks/:id): labels the task's runner must advertise (`runnerLabels` of POST /tasks). */
  runnerLabels: z.array(z.string()).optional(),
  /** MCP-2 (GET /tasks/:id, task.updated): the latest `report_progress` of an agent of the task; null before one. */
  progress: TaskProgress.nullable().optional(),
  /** USE-2: the task's budget, when a person set one (subtasks inherit it). */
  budget: TaskBudget.optional(),
});
export type Task = z.infer<typeof Task>;

export const LastError = z.object({
  code: z.string(),
  message: z.string(),
  repositoryId: z.string().optional(),
  /** What fixes it (e.g. for `workspace_reuse_unsafe`: move the foreign directory, then restore). */
  action: z.string().optional(),
  /** AG-3: the last few KB of the agent's stderr when an agent failed to start or authenticate. */
  stderr: z.string().optional(),
  at: z.string(),
});
export type LastError = z.infer<typeof LastError>;

/** AG-2: the modes an agent reported over ACP (`session/new`, `session/load`, `current_mode_update`). */
export const AgentModes = z.object({
  currentModeId: z.string(),
  availableModes: z.array(z.object({ id: z.string(), name: z.string(), description: z.string().optional() })),
});
export type AgentModes = z.infer<typeof AgentModes>;

/** AG-2: the models an agent offers (its `model` config option). */
export const AgentModels = z.object({
  currentModelId: z.string(),
  availableModels: z.array(z.object({ modelId: z.string(), name: z.string(), description: z.string().optional() })),
});
export type AgentModels = z.infer<typeof AgentModels>;

/** AG-2: a slash command the agent offers (`available_commands_update`). */
export const AgentCommand = z.object({ name: z.string(), description: z.string(), hint: z.string().optional() });
export type AgentCommand = z.infer<typeof AgentCommand>;

/** AG-2: one entry of the agent's latest plan. */
export const PlanEntry = z.object({ content: z.string(), status: z.string(), priority: z.string() });
export type PlanEntry = z.infer<typeof PlanEntry>;

/**
 * LIVE-2: how a turn ended. `completed` is the agent's own `end_turn`; `refused`, `max_tokens`
 * and `failed` (an agent error, a crash, a turn-request limit) are failures; `cancelled` is the
 * person's cancel; `interrupted` a server stop mid-turn; `stalled` no progress past the limit.
 */
export const TurnOutcome = z.enum(["completed", "refused", "failed", "cancelled", "interrupted", "max_tokens", "stalled"]);
export type TurnOutcome = z.infer<typeof TurnOutcome>;

/** LIVE-2: the outcome of a session's latest finished turn, with the agent's reason. */
export const LastTurn = z.object({
  outcome: TurnOutcome,
  /** What the agent said or the error that ended it (absent for a plain `completed`). */
  reason: z.string().optional(),
  /** The ACP `stopReason` when the agent answered the prompt. */
  stopReason: z.string().optional(),
  at: z.string(),
});
export type LastTurn = z.infer<typeof LastTurn>;

/** WEB-37: a follow-up a person queued while a turn ran; sent when the turn ends. */
export const QueuedPrompt = z.object({ id: z.string(), text: z.string(), createdAt: z.string() });
export type QueuedPrompt = z.infer<typeof QueuedPrompt>;

export const Session = z.object({
  id: z.string(),
  taskId: z.string(),
  agent: z.string(),
  state: SessionState,
  taskEnvironmentId: z.string().nullable(),
  lastError: LastError.nullable(),
  /** LIVE-2: null until a turn ended. */
  lastTurn: LastTurn.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** AG-2, once the agent reported them. */
  modes: AgentModes.optional(),
  models: AgentModels.optional(),
  commands: z.array(AgentCommand).optional(),
  plan: z.array(PlanEntry).optional(),
  /** SBX-3: `confined` = the agent runs in the OS sandbox; `unconfined` is shown as a badge. */
  sandbox: z.enum(["confined", "unconfined"]),
  /** SBX-2: connections of the agent the egress proxy refused (each is a `blocked: host:port` note). */
  blockedConnections: z.number().int().nonnegative(),
  /** USE-1: tokens, context and cost so far; absent until the agent reported any. */
  usage: SessionUsage.optional(),
  /** WEB-37: follow-ups queued while a turn ran, oldest first; absent when none. */
  queued: z.array(QueuedPrompt).optional(),
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
  /**
   * RV-7: the branch's commits change this file (it differs between the merge-base and HEAD).
   * With `staged`/`unstaged` also set, the file is in both review sections: committed
   * (`?scope=committed`) and uncommitted (`?scope=uncommitted`).
   */
  committed: z.boolean().optional(),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

/** RV-7: which part of a file's change a patch shows; `all` (default) is merge-base → working tree. */
export const DiffScope = z.enum(["all", "committed", "uncommitted"]);
export type DiffScope = z.infer<typeof DiffScope>;

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
  /** Seed 000: per repository, fail closed and say why — never an empty list standing for "unknown". */
  status: WorktreeState.optional(),
  /** The typed error code when `status` is not `ok` (or git failed): e.g. `workspace_missing`, `workspace_reuse_unsafe`. */
  errorCode: z.string().optional(),
  /** What fixes it, e.g. `grove task restore <taskId>`. */
  action: z.string().optional(),
});
export type RepositoryChanges = z.infer<typeof RepositoryChanges>;

export const Changes = z.object({ taskId: z.string(), repositories: z.array(RepositoryChanges) });
export type Changes = z.infer<typeof Changes>;

export const FileDiff = z.object({
  repositoryId: z.string(),
  path: z.string(),
  scope: DiffScope.optional(),
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
  /** SEC-7: names of server environment variables the agent inherits beyond the base allow-list. */
  inheritEnv: z.array(z.string()).optional(),
  /** AG-3: the command is found / the pinned package is installed. */
  available: z.boolean().optional(),
  /** AG-3: the agent's version (from its cached `initialize`, else the installed package). */
  version: z.string().optional(),
  /** AG-3: the auth methods from the cached `initialize`. */
  authMethods: z.array(z.object({ id: z.string(), name: z.string(), description: z.string().optional() })).optional(),
  /** AG-3: the pinned package of a built-in bridge, `name@version`. */
  package: z.string().optional(),
  /** AG-3: why the agent is not available, and what fixes it. */
  problem: z.string().optional(),
  /** AG-2: why this agent would not ask under `permissionPolicy: "ask"` (`grove agents check` flags it). */
  askProblem: z.string().optional(),
  /** SBX-3: `off` when the profile opts out of the OS sandbox. */
  sandbox: z.enum(["confined", "off"]).optional(),
});
export type AgentProfile = z.infer<typeof AgentProfile>;

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

// ---- request bodies ------------------------------------------------------------------------

const name = z.string().trim().min(1).max(200);
const refName = z.string().min(1).max(250);

export const CreateRepositoryBody = z
  .object({
    path: z.string().min(1).max(4096).optional(),
    url: z.string().min(1).max(4096).optional(),
    provider: z.string().min(1).max(64).optional(),
    credential: z
      .object({ token: z.string().min(1).max(4096), username: z.string().max(256).optional() })
      .strict()
      .optional(),
    apiUrl: z.string().min(1).max(4096).optional(),
    name: name.optional(),
    defaultBranch: refName.optional(),
    pullBeforeWorktree: z.boolean().optional(),
    branchTemplate: z.string().min(1).max(200).optional(),
    credentialPolicy: CredentialPolicy.optional(),
    copyFiles: z.array(z.string().min(1).max(500)).max(100).optional(),
    sparseCheckout: z.array(z.string().min(1).max(500)).max(200).optional(),
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
    sparseCheckout: z.array(z.string().min(1).max(500)).max(200).optional(),
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
    /** Labels the runner of the task's environment must advertise (`GROVE_RUNNER_LABELS`). */
    runnerLabels: z
      .array(
        z
          .string()
          .trim()
          .toLowerCase()
          .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "a label is letters, digits, . _ - (at most 64)"),
      )
      .max(20)
      .optional(),
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
  .object({
    agent: z.string().min(1).max(100).optional(),
    prompt: z.string().max(1_000_000).optional(),
    /** The runner to place a new environment on (forwarded there); must be the environment's own once placed. */
    runnerId: z.string().min(1).max(100).optional(),
  })
  .strict();
export type CreateSessionBody = z.infer<typeof CreateSessionBody>;

/** `POST /sessions/:id/prompt`: text, review comments to compose into it, or both. */
export const PromptBody = z
  .object({
    prompt: z.string().min(1).max(1_000_000).optional(),
    commentIds: z.array(z.string().min(1).max(100)).min(1).max(500).optional(),
    /** WEB-37: while a turn runs, queue the prompt (sent when the turn ends) instead of `409 session_busy`; a waiting session takes it at once. */
    queue: z.boolean().optional(),
  })
  .strict()
  .refine((b) => b.prompt !== undefined || b.commentIds !== undefined, { message: "give prompt or commentIds", path: ["prompt"] })
  .refine((b) => !b.queue || b.commentIds === undefined, { message: "queue takes a prompt, not comments", path: ["queue"] });
/** AG-2: `POST /sessions/:id/mode`. */
export const SetModeBody = z.object({ modeId: z.string().min(1).max(200) }).strict();
/** AG-2: `POST /sessions/:id/model`. */
export const SetModelBody = z.object({ modelId: z.string().min(1).max(200) }).strict();
export type PromptBody = z.infer<typeof PromptBody>;

/** LIVE-5: a task in the trash (`GET /trash`), with when the purge job will remove it for good. */
export const TrashedTask = Task.extend({ deletedAt: z.string(), purgeAt: z.string() });
export type TrashedTask = z.infer<typeof TrashedTask>;

/** WEB-7.1: a permission request waiting for the person (`GET /sessions/:id/permissions`, profile policy `ask`). */
export const PermissionAsk = z.object({
  /** Grove's id for this ask (unique). */
  requestId: z.string(),
  title: z.string(),
  /** The tool call the agent asks about, and its kind (edit, execute, …), when it says. */
  toolCallId: z.string().optional(),
  toolKind: z.string().optional(),
  options: z.array(z.object({ optionId: z.string(), name: z.string(), kind: z.string() })),
});
export type PermissionAsk = z.infer<typeof PermissionAsk>;
