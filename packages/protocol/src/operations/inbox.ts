import { z } from "zod";
import { AnswerQuestionBody, InboxItem, InboxQuery } from "../index.js";
import { operation } from "./operation.js";

/** LIVE-4: the durable attention inbox, shared by every client (live as `inbox.updated` frames). */
export const INBOX_OPERATIONS = {
  listInbox: operation({
    method: "get",
    path: "/inbox",
    summary: "The durable attention inbox, newest first (LIVE-4); live as inbox.updated frames",
    query: InboxQuery,
    queryDocs: { state: "open (default) or all" },
    response: z.array(InboxItem),
  }),
  markInboxItemDone: operation({
    method: "post",
    path: "/inbox/{id}/done",
    summary: "Mark an inbox item done (dismissed); done already answers it unchanged",
    response: InboxItem,
  }),
  markInboxItemRead: operation({
    method: "post",
    path: "/inbox/{id}/read",
    summary: "Mark an inbox item read (the first read is kept)",
    response: InboxItem,
  }),
  answerInboxQuestion: operation({
    method: "post",
    path: "/inbox/{id}/answer",
    summary:
      "Answer an agent's ask_user question (MCP-3): the waiting tool call returns it, or (its agent restarted meanwhile) the session gets it as its next prompt",
    body: AnswerQuestionBody,
    response: InboxItem,
  }),
};
