import type { Comment, CommitBody, CommitResult, CreateCommentBody, MergeBody, MergeResult, PatchCommentBody, PromptBody, UpdateFromBaseBody, UpdateResult, UpdateStepBody } from "@grove/protocol";
import type { SessionRecord } from "../domain/records.js";
import type { Deps } from "./context.js";
import type { LiveSessions } from "./live-sessions.js";
import { commitTask } from "./review-commit.js";
import { createComment, deleteComment, listComments, patchComment } from "./review-comments.js";
import { mergeTask } from "./review-merge.js";
import { promptWithComments } from "./review-prompt.js";
import { abortUpdate, continueUpdate, updateFromBase } from "./review-update.js";

/**
 * Issue 11, review to land: the use cases behind `api/routes/review.ts` (docs/specs/review.md).
 * Reached as `orchestrator.review`.
 */
export class ReviewService {
  constructor(
    private readonly deps: Deps,
    private readonly live: LiveSessions,
  ) {}

  createComment = (taskId: string, body: CreateCommentBody): Promise<Comment> => createComment(this.deps, taskId, body);
  listComments = (taskId: string): Promise<Comment[]> => listComments(this.deps, taskId);
  patchComment = (id: string, body: PatchCommentBody): Promise<Comment> => patchComment(this.deps, id, body);
  deleteComment = (id: string): Promise<void> => deleteComment(this.deps, id);
  commit = (taskId: string, body: CommitBody): Promise<CommitResult> => commitTask(this.deps, taskId, body);
  updateFromBase = (taskId: string, body: UpdateFromBaseBody): Promise<UpdateResult> => updateFromBase(this.deps, taskId, body);
  continueUpdate = (taskId: string, body: UpdateStepBody): Promise<UpdateResult> => continueUpdate(this.deps, taskId, body);
  abortUpdate = (taskId: string, body: UpdateStepBody): Promise<UpdateResult> => abortUpdate(this.deps, taskId, body);
  merge = (taskId: string, body: MergeBody): Promise<MergeResult> => mergeTask(this.deps, taskId, body);
  /** `POST /sessions/:id/prompt`, text and/or review comments. */
  prompt = (sessionId: string, body: PromptBody): Promise<SessionRecord> => promptWithComments(this.deps, this.live, sessionId, body);
}
