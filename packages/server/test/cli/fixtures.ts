/** Sample records in the `@grove/protocol` shapes for the CLI's stub server. */
import type { Message, Repository, Session, Task } from "@grove/protocol";

const at = "2026-01-02T03:04:05.000Z";

export function repository(id: string, name: string, extra: Partial<Repository> = {}): Repository {
  return {
    id,
    name,
    path: `/srv/repos/${name}`,
    provider: "local",
    defaultBranch: "main",
    pullBeforeWorktree: true,
    credentialPolicy: "managed",
    hasCredential: false,
    branchTemplate: "grove/{slug}",
    createdAt: at,
    ...extra,
  };
}

export function task(id: string, title: string, extra: Partial<Task> = {}): Task {
  return {
    id,
    title,
    description: "",
    state: "todo",
    archivedAt: null,
    createdAt: at,
    updatedAt: at,
    repositories: [{ repositoryId: "repo_1", baseBranch: "main", position: 0 }],
    ...extra,
  };
}

export function session(id: string, extra: Partial<Session> = {}): Session {
  return {
    id,
    taskId: "task_1",
    agent: "scripted",
    state: "running",
    taskEnvironmentId: "env_1",
    lastError: null,
    lastTurn: null,
    createdAt: at,
    updatedAt: at,
    sandbox: "confined",
    blockedConnections: 0,
    ...extra,
  };
}

export function message(id: string, role: Message["role"], text: string): Message {
  return { id, sessionId: "ses_1", role, text, createdAt: at };
}
