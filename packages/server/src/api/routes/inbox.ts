import type { INBOX_OPERATIONS } from "@grove/protocol/operations";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import type { HandlersOf } from "../operation-routes.js";

/** LIVE-4: the durable attention inbox, shared by every client (live as `inbox.updated` frames). */
export function inboxHandlers(orch: Orchestrator): HandlersOf<typeof INBOX_OPERATIONS> {
  return {
    listInbox: async ({ query }) => orch.listInbox(query.state),
    markInboxItemDone: async ({ params }) => orch.markInboxDone(params.id),
    markInboxItemRead: async ({ params }) => orch.markInboxRead(params.id),
    answerInboxQuestion: async ({ params, body }) => orch.answerQuestion(params.id, body.answer),
  };
}
