import type { OperationId } from "@grove/protocol/operations";
import type { CreateRepositoryBody, CreateSessionBody, CreateTaskBody, PromptBody, Repository, Session, Task } from "@grove/protocol";

const at = "2026-11-30T12:00:00.000Z";
const repository: Repository = {
  id: "repo_01jdemo",
  name: "demo",
  path: "/home/me/demo",
  provider: "local",
  defaultBranch: "main",
  pullBeforeWorktree: false,
  credentialPolicy: "executor",
  hasCredential: false,
  branchTemplate: "grove/{slug}",
  copyFiles: [],
  sparseCheckout: [],
  setupScript: null,
  createdAt: at,
};
const task: Task = {
  id: "task_01jdemo",
  title: "Say hello",
  description: "",
  state: "todo",
  archivedAt: null,
  createdAt: at,
  updatedAt: at,
  repositories: [{ repositoryId: repository.id, baseBranch: "main", position: 0 }],
};
const session: Session = {
  id: "ses_01jdemo",
  taskId: task.id,
  agent: "scripted",
  state: "running",
  taskEnvironmentId: "env_01jdemo",
  lastError: null,
  lastTurn: null,
  createdAt: at,
  updatedAt: at,
  sandbox: "confined",
  blockedConnections: 0,
};

/**
 * Request and response examples of the main flow (register a repository, create a task, start a
 * session, prompt it), keyed by operationId. Typed with the protocol's types, so an example
 * that drifts from the schema fails the type check.
 */
export const EXAMPLES: Partial<Record<OperationId, { request?: unknown; response?: unknown }>> = {
  addRepository: { request: { path: "/home/me/demo", name: "demo" } satisfies CreateRepositoryBody, response: repository },
  listRepositories: { response: [repository] },
  createTask: { request: { title: "Say hello", repositories: [{ repositoryId: repository.id, baseBranch: "main" }] } satisfies CreateTaskBody, response: task },
  listTasks: { response: [task] },
  getTask: { response: task },
  startSession: {
    request: { agent: "scripted", prompt: "say Hello from the scripted agent\nwrite hello.txt Hello, Grove" } satisfies CreateSessionBody,
    response: { ...session, state: "waiting_for_input" },
  },
  getSession: { response: session },
  promptSession: { request: { prompt: "commit Add hello.txt" } satisfies PromptBody, response: session },
};
