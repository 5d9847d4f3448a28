import { AppError, isAppError } from "../../domain/errors.js";
import type { IssueCloseAction, IssueCommentAction } from "../../domain/workflow.js";
import { issueApi, type IssueApi } from "../../providers/issues.js";
import type { ApiRequest, PullRequestTarget } from "../../providers/pull-requests.js";
import type { Deps } from "../context.js";
import { prAccess } from "../review/review-pr-access.js";
import { type ApiAnswer, RateBudgets, callProvider } from "../review/review-pr-http.js";
import { faultPoint } from "../fault-points.js";

/** How an issue action ended (a part of the actions' `ActionResult`). */
type ActionResult = { state: "succeeded" | "failed"; outcome: string };

/** One repository's issues API with its credential, as the pull-request code gets them (`prAccess`). */
export interface IssueAccess {
  api: IssueApi;
  target: PullRequestTarget;
  call(req: ApiRequest): Promise<ApiAnswer>;
}

/** Provider call budgets of the issues trigger (one process). */
const budgets = new RateBudgets();

export async function issueAccess(deps: Pick<Deps, "store" | "home" | "remote">, repositoryId: string): Promise<IssueAccess> {
  const scope = { repositoryId };
  const repo = await deps.store.getRepository(repositoryId);
  if (!repo) throw new AppError("not_found", `repository ${repositoryId} not found`, scope);
  const api = issueApi(repo.provider);
  if (!api) throw new AppError("pull_request_unsupported", `repository ${repo.name} (${repo.provider}) has no provider issues API`, scope);
  const a = await prAccess(deps, repo, scope);
  const authorization = a.api.authorization(a.credential);
  return { api, target: a.target, call: (req) => callProvider(req, { authorization, budgets, scope, repository: repo.name }) };
}

/** WF-2: the link back. The issue's comments are read first: a redo after a crash finds its own comment and posts none. */
export async function commentOnIssue(deps: Pick<Deps, "store" | "home" | "remote">, a: IssueCommentAction, taskId: string): Promise<ActionResult> {
  try {
    const acc = await issueAccess(deps, a.repositoryId);
    const existing = acc.api.parseComments((await acc.call(acc.api.commentsRequest(acc.target, a.number))).json);
    if (existing.some((body) => body.includes(taskId))) return { state: "succeeded", outcome: `issue #${a.number} already names task ${taskId}` };
    await acc.call(acc.api.commentRequest(acc.target, a.number, a.body));
    await faultPoint("workflow.after_issue_comment");
    return { state: "succeeded", outcome: `commented on issue #${a.number}` };
  } catch (e) {
    if (isAppError(e)) return { state: "failed", outcome: `${e.code}: ${e.message}` };
    throw e;
  }
}

/** WF-2: the task's pull request merged: its issue is closed (closing a closed issue changes nothing). */
export async function closeIssue(deps: Pick<Deps, "store" | "home" | "remote">, a: IssueCloseAction): Promise<ActionResult> {
  try {
    const acc = await issueAccess(deps, a.repositoryId);
    await acc.call(acc.api.closeRequest(acc.target, a.number));
    return { state: "succeeded", outcome: `closed issue #${a.number}` };
  } catch (e) {
    if (isAppError(e)) return { state: "failed", outcome: `${e.code}: ${e.message}` };
    throw e;
  }
}
