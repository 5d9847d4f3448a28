import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { MessagesQuery, PromptBody } from "@grove/protocol";
import { messageView, sessionView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { parse } from "../validate.js";

type Id = { Params: { id: string } };
const PermissionAnswer = z.object({ optionId: z.string().min(1).nullable() }).strict();

export function sessionRoutes(app: FastifyInstance, orch: Orchestrator): void {
  app.get<Id>("/sessions/:id", async (req) => sessionView(await orch.getSession(req.params.id)));
  app.get<Id>("/sessions/:id/messages", async (req) => {
    const q = parse(MessagesQuery, req.query, "query");
    if (q.limit !== undefined) return orch.messagePage(req.params.id, q.limit, q.before ?? q.cursor);
    return (await orch.listMessages(req.params.id)).map(messageView);
  });
  app.get<Id>("/sessions/:id/workspace", async (req) => orch.workspace(req.params.id));
  app.post<Id>("/sessions/:id/prompt", { config: { arbitraryText: ["prompt"] } }, async (req, reply) => {
    const body = parse(PromptBody, req.body);
    if (body.queue && body.prompt !== undefined) return reply.status(202).send(sessionView(await orch.queuePrompt(req.params.id, body.prompt)));
    return reply.status(202).send(sessionView(await orch.guardSessionLaunch(req.params.id, () => orch.review.prompt(req.params.id, body))));
  });
  // WEB-37: take a queued follow-up back before its turn.
  app.delete<{ Params: { id: string; queuedId: string } }>("/sessions/:id/queued/:queuedId", async (req) =>
    sessionView(await orch.dropQueuedPrompt(req.params.id, req.params.queuedId)),
  );
  app.post<Id>("/sessions/:id/cancel", async (req, reply) => reply.status(202).send(sessionView(await orch.cancel(req.params.id))));
  app.post<Id>("/sessions/:id/resume", async (req, reply) => reply.status(202).send(sessionView(await orch.resume(req.params.id))));
  // LIVE-3: out of a stalled turn: stop the agent, resume with session/load in the same worktree.
  app.post<Id>("/sessions/:id/restart", async (req, reply) => reply.status(202).send(sessionView(await orch.restart(req.params.id))));
  app.delete<Id>("/sessions/:id", async (req, reply) => {
    await orch.deleteSession(req.params.id);
    return reply.status(204).send();
  });
  app.get<Id>("/sessions/:id/permissions", async (req) => {
    await orch.getSession(req.params.id);
    return orch.live.pendingAsks(req.params.id);
  });
  app.post<{ Params: { id: string; requestId: string } }>("/sessions/:id/permissions/:requestId", async (req, reply) => {
    const body = parse(PermissionAnswer, req.body);
    await orch.answerPermission(req.params.id, req.params.requestId, body.optionId);
    return reply.status(204).send();
  });
}
