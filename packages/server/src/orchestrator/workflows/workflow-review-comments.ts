import type { PullRequestRecord } from "../../domain/review.js";
import { DEFAULT_REVIEW_COMMENT_PROMPT, type WorkflowRecord, renderTemplate } from "../../domain/workflow.js";
import type { Deps } from "../context.js";
import { prAccess } from "../review/review-pr-access.js";
import { RateBudgets, callProvider } from "../review/review-pr-http.js";
import { workflowOf } from "../tasks/task-workflow.js";
import { templateFields } from "./workflow-actions.js";
import { type Enqueue, type Look, PollIntervals, WorkflowPoller } from "./workflow-poller.js";

/** The cause of a review comment's run; the engine sends a task's comments one at a time, oldest first. */
export const REVIEW_COMMENT_CAUSE = "review_comment";

/** The longest sleep between two looks at the workflows (a new trigger is noticed by then). */
const MAX_SLEEP_MS = 60_000;

/** WF-2.19: one run per provider comment, whatever the workflow or runner: a second poll or a restart queues nothing. */
export function prCommentKey(repositoryId: string, number: number, commentId: string): string {
  return `pr-comment:${repositoryId}:${number}:${commentId}`;
}

/** Provider call budgets of the review-comments trigger (one process). */
const budgets = new RateBudgets();

/** A comment's text on one line: an agent that reads line by line never takes a line of it for a command. */
const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ").trim();

/**
 * WF-2.19 review-comments trigger: polls the review comments of every open pull request of the
 * tasks under a workflow with `reviewComments` (the provider's REST API, with the repository's
 * stored credential, as the checks trigger's refresh does). A comment seen for the first time
 * queues a `pr_comment` run keyed by the provider's comment id, its prompt rendered now (place,
 * author, text); the engine sends it to the working session or a new session, once.
 */
export class WorkflowReviewComments extends WorkflowPoller<Pick<Deps, "store" | "log" | "home" | "now" | "remote">> {
  private readonly intervals = new PollIntervals((w) => w.definition.triggers.reviewComments?.pollSeconds);

  constructor(deps: Pick<Deps, "store" | "log" | "home" | "now" | "remote">, enqueue: Enqueue, queued: () => void) {
    super(deps, enqueue, queued, "workflow: the review comments poll failed");
  }

  /** Polls every workflow whose interval has passed (all with `force`: a workflow was stored). */
  protected async look(now: number, force: boolean): Promise<Look> {
    const { due, wake } = this.intervals.due(await this.deps.store.workflows.list(), now, force, now + MAX_SLEEP_MS);
    let queued = false;
    if (due.length > 0) {
      for (const pr of await this.deps.store.review.listPullRequests()) {
        if (pr.state !== "open") continue;
        const context = { taskId: pr.taskId, repositoryId: pr.repositoryId };
        queued = (await this.guarded(() => this.pollPullRequest(pr, due), context, "workflow: the pull request's review comments could not be read")) || queued;
      }
    }
    return { queued, wake };
  }

  /** Queues a run for each comment of the pull request not seen before, if its task runs under one of `due`. */
  private async pollPullRequest(pr: PullRequestRecord, due: WorkflowRecord[]): Promise<boolean> {
    const task = await this.deps.store.getTask(pr.taskId);
    if (!task || task.archivedAt) return false;
    const wf = await workflowOf(this.deps, task);
    const trigger = due.find((w) => w.name === wf.name)?.definition.triggers.reviewComments;
    if (!trigger || (await this.deps.store.workflows.isTaskStopped(task.id))) return false;
    const repo = await this.deps.store.getRepository(pr.repositoryId);
    if (!repo) return false;
    const scope = { taskId: task.id, repositoryId: repo.id };
    const a = await prAccess(this.deps, repo, scope);
    const authorization = a.api.authorization(a.credential);
    const answers = await Promise.all(
      a.api.feedbackRequests(a.target, pr.number, pr.headCommit).map((req) => callProvider(req, { authorization, budgets, scope, repository: repo.name })),
    );
    const comments = a.api.parseFeedback(answers.map((x) => x.json)).comments.filter((c) => c.id !== null);
    if (comments.length === 0) return false;
    const fields = await templateFields(this.deps, task, task.state);
    let queued = false;
    for (const [i, c] of comments.entries()) {
      const text = renderTemplate(trigger.prompt ?? DEFAULT_REVIEW_COMMENT_PROMPT, {
        ...fields,
        path: c.path ?? "(the pull request)",
        line: c.line === null ? "-" : String(c.line),
        author: c.author ?? "someone",
        comment: oneLine(c.body),
      });
      const run = await this.enqueue({
        idemKey: prCommentKey(repo.id, pr.number, c.id!),
        taskId: task.id,
        entryId: null,
        workflow: wf.name,
        version: wf.version,
        step: task.state,
        // The comments' order within one poll: the engine sends them in this order.
        actionIndex: i,
        action: {
          action: "pr_comment",
          repositoryId: repo.id,
          number: pr.number,
          commentId: c.id!,
          text,
          ...(trigger.agent ? { agent: trigger.agent } : {}),
        },
        cause: REVIEW_COMMENT_CAUSE,
      });
      queued ||= run !== undefined;
    }
    return queued;
  }
}
