import type { FastifyInstance } from "fastify";
import { AnswerQuestionBody, InboxQuery } from "@grove/protocol";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { parse } from "../validate.js";

type Id = { Params: { id: string } };

/** LIVE-4: the durable attention inbox, shared by every client (live as `inbox.updated` frames). */
export function inboxRoutes(app: FastifyInstance, orch: Orchestrator): void {
  app.get("/inbox", async (req) => orch.listInbox(parse(InboxQuery, req.query, "query").state));
  app.post<Id>("/inbox/:id/done", async (req) => orch.markInboxDone(req.params.id));
  app.post<Id>("/inbox/:id/read", async (req) => orch.markInboxRead(req.params.id));
  app.post<Id>("/inbox/:id/answer", async (req) => orch.answerQuestion(req.params.id, parse(AnswerQuestionBody, req.body).answer));
}
