/**
 * SBX-5: the routes a runner forwards to the task's own runner — and the only routes a
 * signed runner-to-runner request may reach.
 */

/** How a route finds its task: the `:id` is the task's, a session's or a review comment's. */
export type Scope = "task" | "session" | "comment";
export interface Rule {
  scope: Scope;
  /** The first session places the environment (POST /tasks/:id/sessions). */
  place?: true;
  /** A WebSocket route: piped by its handler (see terminal.ts), not proxied here. */
  ws?: true;
}

/**
 * Every route that acts where a task's files are or on its live agents. A request for one of
 * them whose task lives on another runner goes there; everything else is answered from the
 * shared database by whichever runner receives it (lists, task rows, messages, comments rows).
 */
const RULES: Record<string, Rule> = {
  "POST /tasks/:id/sessions": { scope: "task", place: true },
  "GET /tasks/:id/environment": { scope: "task" },
  "POST /tasks/:id/environment/restore": { scope: "task" },
  "POST /tasks/:id/environment/reset": { scope: "task" },
  "GET /tasks/:id/changes": { scope: "task" },
  "GET /tasks/:id/changes/diff": { scope: "task" },
  "POST /tasks/:id/archive": { scope: "task" },
  "DELETE /tasks/:id": { scope: "task" },
  "POST /tasks/:id/comments": { scope: "task" },
  "GET /tasks/:id/comments": { scope: "task" },
  "POST /tasks/:id/commit": { scope: "task" },
  "POST /tasks/:id/update-from-base": { scope: "task" },
  "POST /tasks/:id/update-from-base/continue": { scope: "task" },
  "POST /tasks/:id/update-from-base/abort": { scope: "task" },
  "GET /tasks/:id/conflicts": { scope: "task" },
  "POST /tasks/:id/conflicts/send": { scope: "task" },
  "POST /tasks/:id/merge": { scope: "task" },
  "POST /tasks/:id/pull-requests": { scope: "task" },
  "POST /tasks/:id/pull-requests/feedback": { scope: "task" },
  "GET /tasks/:id/terminal": { scope: "task", ws: true },
  "POST /tasks/:id/open-in-editor": { scope: "task" },
  // Editing a comment answers with its `outdated` flag, read from the worktree.
  "PATCH /comments/:id": { scope: "comment" },
  "GET /sessions/:id/workspace": { scope: "session" },
  "POST /sessions/:id/prompt": { scope: "session" },
  "POST /sessions/:id/cancel": { scope: "session" },
  "POST /sessions/:id/resume": { scope: "session" },
  "POST /sessions/:id/restart": { scope: "session" },
  "DELETE /sessions/:id": { scope: "session" },
  "GET /sessions/:id/permissions": { scope: "session" },
  "POST /sessions/:id/permissions/:requestId": { scope: "session" },
  "POST /sessions/:id/mode": { scope: "session" },
  "POST /sessions/:id/model": { scope: "session" },
};

/** Routes that still answer from the database when the task's runner is offline (its state is part of the answer). */
export const LOCAL_WHEN_OFFLINE: ReadonlySet<string> = new Set(["GET /tasks/:id/environment"]);

/** The rule of a request's route, if any (route paths are registered under `/api/v1`). */
export function ruleOf(method: string, routeUrl: string | undefined): Rule | undefined {
  if (!routeUrl?.startsWith("/api/v1/")) return undefined;
  return RULES[`${method} ${routeUrl.slice("/api/v1".length)}`];
}

/** The forwarded routes, for tests and docs (`METHOD /path`). */
export const FORWARDED_ROUTES: readonly string[] = Object.keys(RULES);
