import type {
  Comment,
  CommitBody,
  SendConflictsBody,
  TaskConflicts,
  CreatePullRequestBody,
  PullRequest,
  CommitResult,
  CreateCommentBody,
  MergeBody,
  MergeResult,
  PatchCommentBody,
  PromptBody,
  UpdateFromBaseBody,
  UpdateResult,
  UpdateStepBody,
} from "@grove/protocol";
import type { SessionRecord } from "../../domain/records.js";
import { DEFAULT_TUNING } from "../../config.js";
import type { Deps, SessionPorts } from "../context.js";
import type { LiveSessions } from "../sessions/live-sessions.js";
import { commitTask } from "./review-commit.js";
import { createComment, deleteComment, listComments, patchComment } from "./review-comments.js";
import { mergeTask } from "./review-merge.js";
import { createPullRequests, listPullRequests, refreshPullRequests } from "./review-pr.js";
import { sendPullRequestFeedback } from "./review-pr-feedback.js";
import { RateBudgets } from "./review-pr-http.js";
import { PullRequestPoller } from "./review-pr-poller.js";
import { promptWithComments } from "./review-prompt.js";
import { abortUpdate, continueUpdate, updateFromBase } from "./review-update.js";
import { listConflicts, sendConflicts } from "./review-conflicts.js";

/** The ports (orchestrator/context.ts) ReviewService uses: a session's, and the person's git identity for its commits, merges and updates. */
type ReviewServicePorts = SessionPorts & Pick<Deps, "gitIdentity">;

/**
 * Review to land: the use cases behind `api/routes/review.ts` (docs/specs/review.md).
 * Reached as `orchestrator.review`.
 */
export class ReviewService {
  /** Provider API budgets of this process, shared by people's actions and the poller. */
  private readonly budgets = new RateBudgets();
  readonly poller: PullRequestPoller;

  constructor(
    private readonly deps: ReviewServicePorts,
    private readonly live: LiveSessions,
  ) {
    this.poller = new PullRequestPoller(deps, this.budgets, (deps.tuning ?? DEFAULT_TUNING).prRefreshMs);
  }

  /** Starts the background pull-request refresh. */
  start(): void {
    this.poller.start();
  }
  async stop(): Promise<void> {
    await this.poller.stop();
  }

  createComment = (taskId: string, body: CreateCommentBody): Promise<Comment> => createComment(this.deps, taskId, body);
  listComments = (taskId: string): Promise<Comment[]> => listComments(this.deps, taskId);
  patchComment = (id: string, body: PatchCommentBody): Promise<Comment> => patchComment(this.deps, id, body);
  deleteComment = (id: string): Promise<void> => deleteComment(this.deps, id);
  commit = (taskId: string, body: CommitBody): Promise<CommitResult> => commitTask(this.deps, taskId, body);
  /** LIVE-4: told every update's outcome, so a worktree left holding conflicts is an inbox item until continued or aborted. */
  onUpdateResult: (taskId: string, result: UpdateResult) => void = () => undefined;
  updateFromBase = (taskId: string, body: UpdateFromBaseBody): Promise<UpdateResult> => this.told(taskId, updateFromBase(this.deps, taskId, body));
  continueUpdate = (taskId: string, body: UpdateStepBody): Promise<UpdateResult> => this.told(taskId, continueUpdate(this.deps, taskId, body));
  abortUpdate = (taskId: string, body: UpdateStepBody): Promise<UpdateResult> => this.told(taskId, abortUpdate(this.deps, taskId, body));
  private async told(taskId: string, result: Promise<UpdateResult>): Promise<UpdateResult> {
    const r = await result;
    this.onUpdateResult(taskId, r);
    return r;
  }
  conflicts = (taskId: string, repositoryId?: string): Promise<TaskConflicts> => listConflicts(this.deps, taskId, repositoryId);
  sendConflicts = (taskId: string, body: SendConflictsBody): Promise<SessionRecord> => sendConflicts(this.deps, this.live, taskId, body);
  merge = (taskId: string, body: MergeBody): Promise<MergeResult> => mergeTask(this.deps, taskId, body);
  createPullRequests = (taskId: string, body: CreatePullRequestBody, opts: { forcePush?: boolean } = {}): Promise<PullRequest[]> =>
    createPullRequests(this.deps, this.budgets, taskId, body, opts);
  listPullRequests = (taskId: string): Promise<PullRequest[]> => listPullRequests(this.deps, taskId);
  refreshPullRequests = (taskId: string): Promise<PullRequest[]> => refreshPullRequests(this.deps, this.budgets, taskId);
  feedback = (taskId: string, sessionId: string): Promise<SessionRecord> => sendPullRequestFeedback(this.deps, this.live, this.budgets, taskId, sessionId);
  /** `POST /sessions/:id/prompt`, text and/or review comments. */
  prompt = (sessionId: string, body: PromptBody): Promise<SessionRecord> => promptWithComments(this.deps, this.live, sessionId, body);
}
