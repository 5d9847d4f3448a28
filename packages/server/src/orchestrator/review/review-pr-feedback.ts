import { AppError } from "../../domain/errors.js";
import type { SessionRecord } from "../../domain/records.js";
import type { SessionPorts } from "../context.js";
import type { LiveSessions } from "../sessions/live-sessions.js";
import { prAccess } from "./review-pr-access.js";
import { callProvider, type RateBudgets } from "./review-pr-http.js";
import { getSessionOr404, promptSession } from "../sessions/session-ops.js";

/**
 * `POST /tasks/:id/pull-requests/feedback {sessionId}`: one prompt to the session with every
 * failed check (name and summary) and every unresolved review comment of the task's pull
 * requests. Lines are labelled so an agent reading line by line never takes one for a command.
 */
export async function sendPullRequestFeedback(
  deps: SessionPorts,
  live: LiveSessions,
  budgets: RateBudgets,
  taskId: string,
  sessionId: string,
): Promise<SessionRecord> {
  const session = await getSessionOr404(deps, sessionId);
  if (session.taskId !== taskId) throw new AppError("invalid_request", `session ${sessionId} is not a session of task ${taskId}`, { field: "sessionId" });
  const prs = await deps.store.review.listPullRequests(taskId);
  if (prs.length === 0) throw new AppError("not_found", `task ${taskId} has no pull request`, { taskId });
  const parts: string[] = [];
  for (const pr of prs) {
    const repo = await deps.store.getRepository(pr.repositoryId);
    if (!repo) continue;
    const scope = { taskId, sessionId, repositoryId: repo.id };
    const a = await prAccess(deps, repo, scope);
    const authorization = a.api.authorization(a.credential);
    const answers = await Promise.all(
      a.api.feedbackRequests(a.target, pr.number, pr.headCommit).map((req) => callProvider(req, { authorization, budgets, scope, repository: repo.name })),
    );
    const fb = a.api.parseFeedback(answers.map((x) => x.json));
    parts.push(`Pull request ${pr.number} of ${repo.name} (${pr.url}):`);
    for (const c of fb.failedChecks) parts.push(`Failed check: ${c.name}: ${c.summary.replace(/\s*\n\s*/g, " ")}`);
    for (const c of fb.comments)
      parts.push(
        `Review comment${c.path ? ` on ${c.path}${c.line ? ` line ${c.line}` : ""}` : ""}${c.author ? ` by ${c.author}` : ""}: ${c.body.replace(/\s*\n\s*/g, " ")}`,
      );
    if (fb.failedChecks.length === 0 && fb.comments.length === 0) parts.push("Feedback: no failed checks and no unresolved review comments.");
  }
  return promptSession(deps, live, sessionId, parts.join("\n"));
}
