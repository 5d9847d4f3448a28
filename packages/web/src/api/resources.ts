/**
 * Data access: every read the page makes goes through one of these functions, so a change of
 * the API (list paging) touches one place.
 */
import type { CleanupJob, Message, Page, Session, Task, TaskCounts, TaskSummary } from "@grove/protocol";
import { call } from "./client.js";

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
  const query = {
    view: "summary",
    order: "newest",
    limit,
    archived: f.archived,
    state: f.state,
    repositoryId: f.repositoryId || undefined,
    q: f.q || undefined,
    cursor,
  } as const;
  // With ?view=summary&limit the answer is a page of summaries (the other shapes of the response are plain arrays).
  return call("listTasks", { query }) as Promise<Page<TaskSummary>>;
}

/** WEB-30: exact counts per state for the board's server-side filters. */
export function getTaskCounts(f: Pick<TaskQuery, "archived" | "repositoryId" | "q">): Promise<TaskCounts> {
  return call("countTasks", { query: { archived: f.archived, repositoryId: f.repositoryId || undefined, q: f.q || undefined } });
}

// Without ?limit the lists answer plain arrays (the other shape of their responses is a page).
export const getTask = (id: string) => call("getTask", { params: { id } });
export const listSessions = (taskId: string) => call("listTaskSessions", { params: { id: taskId } }) as Promise<Session[]>;
export const listMessages = (sessionId: string) => call("listSessionMessages", { params: { id: sessionId } }) as Promise<Message[]>;
export const listPermissions = (sessionId: string) => call("listPermissionRequests", { params: { id: sessionId } });
export const listWorkflowRuns = (taskId: string) => call("listWorkflowRuns", { params: { id: taskId } });
export const getChanges = (taskId: string) => call("getTaskChanges", { params: { id: taskId } });
export const getConflicts = (taskId: string) => call("getTaskConflicts", { params: { id: taskId } });
export const getDiff = (taskId: string, repositoryId: string, path: string, scope?: "committed" | "uncommitted") =>
  call("getTaskFileDiff", { params: { id: taskId }, query: { repositoryId, path, scope } });
export const getEnvironment = (taskId: string) => call("getTaskEnvironment", { params: { id: taskId } });
export const listCleanupJobs = (taskId: string) => call("listCleanupJobs", { query: { taskId } }) as Promise<CleanupJob[]>;
export const listRepositories = () => call("listRepositories");
export const listAgents = () => call("listAgentProfiles");
export const getHealth = () => call("getHealth");
export const listComments = (taskId: string) => call("listReviewComments", { params: { id: taskId } });
export const listPullRequests = (taskId: string) => call("listPullRequests", { params: { id: taskId } });

/**
 * The routes this server offers (`METHOD /path/{param}`), read from its OpenAPI document, so
 * the page shows review actions only where the API has them and never asks for a route that
 * would answer 404.
 */
export async function getCapabilities(): Promise<Set<string>> {
  const doc = (await call("getOpenApiDocument")) as { paths?: Record<string, Record<string, unknown>> };
  const out = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths ?? {})) for (const m of Object.keys(ops)) out.add(`${m.toUpperCase()} ${path}`);
  return out;
}
