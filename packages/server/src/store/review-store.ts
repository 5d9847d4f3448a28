import type { CommentRecord, CommentState, PullRequestRecord } from "../domain/review.js";
import * as comments from "./comments-repo.js";
import * as prs from "./pull-requests-repo.js";
import type { Ctx } from "./schema.js";

/**
 * Persistence: review comments and pull requests. Reached as `store.review`; every
 * call runs in the caller's open store transaction if there is one (`ctx()` decides).
 */
export class ReviewStore {
  constructor(private readonly ctx: () => Ctx) {}

  insertComment(c: CommentRecord): Promise<void> {
    return comments.insertComment(this.ctx().db, c);
  }
  getComment(id: string): Promise<CommentRecord | undefined> {
    return comments.getComment(this.ctx().db, id);
  }
  /** Oldest first. */
  listComments(taskId: string): Promise<CommentRecord[]> {
    return comments.listComments(this.ctx().db, taskId);
  }
  /** Compare-and-set on the comment's state; undefined when it lost. */
  updateCommentIf(
    id: string,
    from: readonly CommentState[],
    patch: Parameters<typeof comments.updateCommentIf>[3],
    now: string,
  ): Promise<CommentRecord | undefined> {
    return comments.updateCommentIf(this.ctx().db, id, from, patch, now);
  }
  deleteComment(id: string): Promise<boolean> {
    return comments.deleteComment(this.ctx().db, id);
  }

  upsertPullRequest(p: PullRequestRecord): Promise<void> {
    return prs.upsertPullRequest(this.ctx(), p);
  }
  getPullRequest(taskId: string, repositoryId: string): Promise<PullRequestRecord | undefined> {
    return prs.getPullRequest(this.ctx().db, taskId, repositoryId);
  }
  /** Of one task, or of every task (the background refresher). */
  listPullRequests(taskId?: string): Promise<PullRequestRecord[]> {
    return prs.listPullRequests(this.ctx().db, taskId);
  }
  /** Compare-and-set on `updatedAt`; undefined when another refresher won. */
  updatePullRequestIf(p: PullRequestRecord, expectedUpdatedAt: string): Promise<PullRequestRecord | undefined> {
    return prs.updatePullRequestIf(this.ctx(), p, expectedUpdatedAt);
  }
}
