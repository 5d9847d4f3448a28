import { newId } from "../../src/domain/ids.js";
import type { RepositoryRecord, SessionRecord, SessionState, TaskRecord } from "../../src/domain/records.js";
import type { Store } from "../../src/store/store.js";

/** Record builders for store tests: valid defaults, override what the test is about. */

let clock = Date.parse("2030-01-01T00:00:00.000Z");
/** Strictly increasing ISO timestamps, so "oldest first" orderings are observable. */
export function tick(): string {
  clock += 1000;
  return new Date(clock).toISOString();
}

export function repository(over: Partial<RepositoryRecord> = {}): RepositoryRecord {
  const id = newId("repo");
  const now = tick();
  return {
    id,
    name: `r-${id}`,
    path: `/srv/${id}`,
    url: null,
    provider: "local",
    defaultBranch: "main",
    pullBeforeWorktree: false,
    credentialPolicy: "managed",
    apiUrl: null,
    hasCredential: false,
    branchTemplate: "grove/{title}-{suffix}",
    copyFiles: [],
    sparseCheckout: ["app", "libs/ui"],
    setupScript: null,
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

export function task(repositoryIds: string[], over: Partial<TaskRecord> = {}): TaskRecord {
  const id = newId("task");
  const now = tick();
  return {
    id,
    title: "A task",
    description: "",
    state: "todo",
    dirName: `a-task-${id}`,
    archivedAt: null,
    createdAt: now,
    updatedAt: now,
    repositories: repositoryIds.map((repositoryId, position) => ({ repositoryId, baseBranch: "main", checkoutBranch: null, prNumber: null, position })),
    ...over,
  };
}

export function session(taskId: string, state: SessionState = "starting", over: Partial<SessionRecord> = {}): SessionRecord {
  const now = tick();
  return {
    id: newId("ses"),
    taskId,
    agent: "scripted",
    state,
    taskEnvironmentId: null,
    acpSessionId: null,
    lastError: null,
    createdAt: now,
    updatedAt: now,
    sandbox: "confined",
    blockedConnections: 0,
    ...over,
  };
}

/** A repository and a task attached to it, stored. */
export async function seedTask(store: Store, over: Partial<TaskRecord> = {}): Promise<{ repo: RepositoryRecord; task: TaskRecord }> {
  const repo = repository();
  await store.insertRepository(repo);
  const t = task([repo.id], over);
  await store.insertTask(t);
  return { repo, task: t };
}
