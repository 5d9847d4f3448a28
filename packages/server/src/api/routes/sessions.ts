import type { SESSION_OPERATIONS } from "@grove/protocol/operations";
import { messageView, sessionView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import type { HandlersOf } from "../operation-routes.js";

/** Agent sessions: prompts, messages, permissions. */
export function sessionHandlers(orch: Orchestrator): HandlersOf<typeof SESSION_OPERATIONS> {
  return {
    getSession: async ({ params }) => sessionView(await orch.getSession(params.id)),
    listSessionMessages: async ({ params, query }) => {
      if (query.limit !== undefined) return orch.messagePage(params.id, query.limit, query.before ?? query.cursor);
      return (await orch.listMessages(params.id)).map(messageView);
    },
    getSessionWorkspace: async ({ params }) => orch.workspace(params.id),
    promptSession: async ({ params, body }) => {
      if (body.queue && body.prompt !== undefined) return sessionView(await orch.queuePrompt(params.id, body.prompt));
      return sessionView(await orch.guardSessionLaunch(params.id, () => orch.review.prompt(params.id, body)));
    },
    // WEB-37: take a queued follow-up back before its turn.
    dropQueuedPrompt: async ({ params }) => sessionView(await orch.dropQueuedPrompt(params.id, params.queuedId)),
    cancelSessionTurn: async ({ params }) => sessionView(await orch.cancel(params.id)),
    resumeSession: async ({ params }) => sessionView(await orch.resume(params.id)),
    // LIVE-3: out of a stalled turn: stop the agent, resume with session/load in the same worktree.
    restartSession: async ({ params }) => sessionView(await orch.restart(params.id)),
    deleteSession: async ({ params }) => {
      await orch.deleteSession(params.id);
      return undefined;
    },
    listPermissionRequests: async ({ params }) => {
      await orch.getSession(params.id);
      return orch.live.pendingAsks(params.id);
    },
    answerPermissionRequest: async ({ params, body }) => {
      await orch.answerPermission(params.id, params.requestId, body.optionId);
      return undefined;
    },
  };
}
