/**
 * Data access: every read the page makes goes through one of these functions, so a change of
 * the API (list paging) touches one place.
 */
import type { AgentProfile, Changes, CleanupJob, Environment, FileDiff, Health, Message, Repository, Session, Task } from "@grove/protocol";
import { api, enc } from "./client.js";
import type { PermissionAsk, PullRequest, ReviewComment } from "./types.js";

/**
 * The tasks of the board (active or archived). Today the plain array of `GET /tasks`; the
 * board filters it in the page (board/filter.ts). When the API answers
 * `?limit=&cursor=&q=&state=&repositoryId=` with `{items, nextCursor}`, this is the function
 * that switches to pages.
 */
export function listTasks(archived: boolean): Promise<Task[]> {
  return api.get<Task[]>(`/tasks?archived=${archived}`);
}

export const getTask = (id: string) => api.get<Task>(`/tasks/${enc(id)}`);
export const listSessions = (taskId: string) => api.get<Session[]>(`/tasks/${enc(taskId)}/sessions`);
export const listMessages = (sessionId: string) => api.get<Message[]>(`/sessions/${enc(sessionId)}/messages`);
export const listPermissions = (sessionId: string) => api.get<PermissionAsk[]>(`/sessions/${enc(sessionId)}/permissions`);
export const getChanges = (taskId: string) => api.get<Changes>(`/tasks/${enc(taskId)}/changes`);
export const getDiff = (taskId: string, repositoryId: string, path: string) => api.get<FileDiff>(`/tasks/${enc(taskId)}/changes/diff?repositoryId=${enc(repositoryId)}&path=${enc(path)}`);
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
