import type { REVIEW_OPERATIONS } from "@grove/protocol/operations";
import { sessionView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import type { HandlersOf } from "../operation-routes.js";

/** Review comments, commit, update from base, conflicts, merge, pull requests. */
export function reviewHandlers(orch: Orchestrator): HandlersOf<typeof REVIEW_OPERATIONS> {
  const r = orch.review;
  return {
    addReviewComment: async ({ params, body }) => r.createComment(params.id, body),
    listReviewComments: async ({ params }) => r.listComments(params.id),
    updateReviewComment: async ({ params, body }) => r.patchComment(params.id, body),
    deleteReviewComment: async ({ params }) => {
      await r.deleteComment(params.id);
      return undefined;
    },
    commitTaskChanges: async ({ params, body }) => r.commit(params.id, body),
    updateTaskFromBase: async ({ params, body }) => r.updateFromBase(params.id, body),
    continueTaskUpdate: async ({ params, body }) => r.continueUpdate(params.id, body),
    abortTaskUpdate: async ({ params, body }) => r.abortUpdate(params.id, body),
    getTaskConflicts: async ({ params, query }) => r.conflicts(params.id, query.repositoryId),
    sendTaskConflicts: async ({ params, body }) => sessionView(await r.sendConflicts(params.id, body)),
    mergeTaskIntoBase: async ({ params, body }) => r.merge(params.id, body),
    createPullRequests: async ({ params, body }) => r.createPullRequests(params.id, body),
    listPullRequests: async ({ params }) => r.listPullRequests(params.id),
    refreshPullRequests: async ({ params }) => r.refreshPullRequests(params.id),
    sendPullRequestFeedback: async ({ params, body }) => sessionView(await r.feedback(params.id, body.sessionId)),
  };
}
