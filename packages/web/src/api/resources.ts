/**
 * Data access: every read the page makes goes through one of these functions, so a change of
 * the API (list paging) touches one place.
 */
import type {
  AgentProfile,
  Changes,
  CleanupJob,
  Environment,
  FileDiff,
  Health,
  Message,
  Page,
  Repository,
  Session,
  Task,
  TaskConflicts,
  TaskCounts,
  TaskSummary,
  WorkflowRun,
} from "@grove/protocol";
import { api, enc } from "./client.js";
import type { Comment as ReviewComment, PermissionAsk, PullRequest } from "@grove/protocol";

/** The board's page size: one screen of every column, and a little more. */
export const BOARD_PAGE = 50;

/** What the server filters a board column by (the agent filter is applied in the page). */
export interface TaskQuery {
  archived: boolean;
  state: Task["state"];
  repositoryId: string;
  q: string;
}

/**
 * One page of a board column: `GET /tasks?view=summary&order=newest&limit=N[&cursor=C]` with
 * the server-side filters (docs/specs/lists.md). `cursor` is the previous page's `nextCursor`.
 */
export function listTaskSummaries(f: TaskQuery, cursor: string | undefined, limit = BOARD_PAGE): Promise<Page<TaskSummary>> {
  const p = new URLSearchParams({ view: "summary", order: "newest", limit: String(limit), archived: String(f.archived), state: f.state });
  if (f.repositoryId) p.set("repositoryId", f.repositoryId);
  if (f.q) p.set("q", f.q);
  if (cursor) p.set("cursor", cursor);
  return api.get<Page<TaskSummary>>(`/tasks?${p.toString()}`);
}

/** WEB-30: exact counts per state for the board's server-side filters. */
export function getTaskCounts(f: Pick<TaskQuery, "archived" | "repositoryId" | "q">): Promise<TaskCounts> {
  const p = new URLSearchParams({ archived: String(f.archived) });
  if (f.repositoryId) p.set("repositoryId", f.repositoryId);
  if (f.q) p.set("q", f.q);
  return api.get<TaskCounts>(`/tasks/counts?${p.toString()}`);
}

export const getTask = (id: string) => api.get<Task>(`/tasks/${enc(id)}`);
export const listSessions = (taskId: string) => api.get<Session[]>(`/tasks/${enc(taskId)}/sessions`);
export const listMessages = (sessionId: string) => api.get<Message[]>(`/sessions/${enc(sessionId)}/messages`);
export const listPermissions = (sessionId: string) => api.get<PermissionAsk[]>(`/sessions/${enc(sessionId)}/permissions`);
export const listWorkflowRuns = (taskId: string) => api.get<WorkflowRun[]>(`/tasks/${enc(taskId)}/workflow-runs`);
export const getChanges = (taskId: string) => api.get<Changes>(`/tasks/${enc(taskId)}/changes`);
export const getConflicts = (taskId: string) => api.get<TaskConflicts>(`/tasks/${enc(taskId)}/conflicts`);
export const getDiff = (taskId: string, repositoryId: string, path: string, scope?: "committed" | "uncommitted") =>
  api.get<FileDiff>(`/tasks/${enc(taskId)}/changes/diff?repositoryId=${enc(repositoryId)}&path=${enc(path)}${scope ? `&scope=${scope}` : ""}`);
export const getEnvironment = (taskId: string) => api.get<Environment>(`/tasks/${enc(taskId)}/environment`);
export const listCleanupJobs = (taskId: string) => api.get<CleanupJob[]>(`/cleanup-jobs?taskId=${enc(taskId)}`);
export const listRepositories = () => api.get<Repository[]>("/repositories");
export const listAgents = () => api.get<AgentProfile[]>("/agents");
export const getHealth = () => api.get<Health>("/health");
export const listComments = (taskId: string) => api.get<ReviewComment[]>(`/tasks/${enc(taskId)}/comments`);
export const listPullRequests = (taskId: string) => api.get<PullRequest[]>(`/tasks/${enc(taskId)}/pull-requests`);

/**
 * The routes this server offers (`METHOD /path/{param}`), read from its OpenAPI document, so
 * the page shows review actions only where the API has them and never asks for a route that
 * would answer 404.
 */
export async function getCapabilities(): Promise<Set<string>> {
  const doc = await api.get<{ paths?: Record<string, Record<string, unknown>> }>("/openapi.json");
  const out = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths ?? {})) for (const m of Object.keys(ops)) out.add(`${m.toUpperCase()} ${path}`);
  return out;
}
