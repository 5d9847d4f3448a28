import type { SessionSandbox } from "./sandbox-profile.js";
import type { AgentState } from "./agent-state.js";
import type { EnvironmentStatus, LastError, LastTurn, MessageRole, QueuedPrompt, SessionState, SessionUsage, TaskBudget, TaskState } from "@grove/protocol";

/** The state vocabularies are protocol's enums (what the API validates and the page words); the records only re-export them. */
export type { EnvironmentStatus, MessageRole, SessionState, TaskState };

/** Persisted records as the server sees them (camelCase, ISO timestamps). */

export interface RepositoryRecord {
  id: string;
  name: string;
  /** Absolute real path of the checkout (local) or the managed clone (remote). */
  path: string;
  url: string | null;
  provider: string;
  defaultBranch: string;
  pullBeforeWorktree: boolean;
  credentialPolicy: "managed" | "executor";
  hasCredential: boolean;
  branchTemplate: string;
  copyFiles: string[];
  /** WT-11: directories of git's sparse-checkout cone for new worktrees; empty = the whole tree. */
  sparseCheckout?: string[];
  setupScript: string | null;
  /** The provider's REST API base for pull requests; null/absent = the public API. */
  apiUrl?: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface TaskRepositoryRecord {
  repositoryId: string;
  baseBranch: string;
  checkoutBranch: string | null;
  prNumber: number | null;
  position: number;
}

export interface TaskRecord {
  id: string;
  title: string;
  description: string;
  state: TaskState;
  /** Directory name under $GROVE_HOME/tasks (WT-1), fixed at creation. */
  dirName: string;
  archivedAt: string | null;
  /** LIVE-5: set while the task is in the trash; absent or null otherwise. */
  deletedAt?: string | null;
  /** MCP-3: the parent of a subtask (an agent's `subtask_create`); absent otherwise. */
  parentId?: string | null;
  createdAt: string;
  updatedAt: string;
  repositories: TaskRepositoryRecord[];
  /** USE-2: the person's budget; absent when none is set. */
  budget?: TaskBudget;
}

export interface EnvironmentRecord {
  id: string;
  taskId: string;
  status: EnvironmentStatus;
  workspacePath: string | null;
  runnerId: string;
  /** The session whose launch is materializing (status `creating`). */
  materializerSessionId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The physical tuple (ENV-1): written as a unit, only from a concrete result (ENV-2). */
export interface WorktreeTuple {
  worktreeId: string;
  worktreePath: string;
  worktreeBranch: string;
}

export interface EnvironmentRepoRecord {
  id: string;
  environmentId: string;
  repositoryId: string;
  branchSlug: string;
  worktreeId: string | null;
  worktreePath: string | null;
  worktreeBranch: string | null;
  baseBranch: string;
  position: number;
  status: "active" | "deleted";
  errorMessage: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export interface SessionRecord {
  id: string;
  taskId: string;
  agent: string;
  state: SessionState;
  taskEnvironmentId: string | null;
  /** The agent's own ACP session id, for `session/load` (SES-5). */
  acpSessionId: string | null;
  lastError: LastError | null;
  /** LIVE-2: how the latest finished turn ended (absent on records built before it was known). */
  lastTurn?: LastTurn | null;
  createdAt: string;
  updatedAt: string;
  /** AG-2: what the agent reported over ACP and what a person chose (absent until reported). */
  agentState?: AgentState | null;
  /** SBX-3: whether the agent runs in the OS sandbox. */
  sandbox: SessionSandbox;
  /** SBX-2: connections of the agent the egress proxy refused (0 until one is). */
  blockedConnections?: number;
  /** USE-1: absent until the agent reported usage. */
  usage?: SessionUsage;
  /** WEB-37: follow-ups queued while a turn ran, oldest first (absent when none). */
  queued?: QueuedPrompt[];
}

export interface MessageRecord {
  id: string;
  sessionId: string;
  role: MessageRole;
  text: string;
  data: unknown;
  createdAt: string;
}

/** An agent process this runner started; start time guards against recycled pids. */
export interface AgentProcessRecord {
  sessionId: string;
  runnerId: string;
  pid: number;
  startTime: string;
  createdAt: string;
}
