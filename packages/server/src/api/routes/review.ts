import type { FastifyInstance } from "fastify";
import { z } from "zod";
import {
  CommitBody,
  CreateCommentBody,
  SendConflictsBody,
  CreatePullRequestBody,
  FeedbackBody,
  MergeBody,
  PatchCommentBody,
  UpdateFromBaseBody,
  UpdateStepBody,
} from "@grove/protocol";
import { sessionView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { parse } from "../validate.js";

type Id = { Params: { id: string } };
const ConflictsQuery = z.object({ repositoryId: z.string().min(1).max(100).optional() });

/** Routes: review comments, commit, update from base, merge, pull requests. */
export function reviewRoutes(app: FastifyInstance, orch: Orchestrator): void {
  const r = orch.review;
  app.post<Id>("/tasks/:id/comments", async (req, reply) => reply.status(201).send(await r.createComment(req.params.id, parse(CreateCommentBody, req.body))));
  app.get<Id>("/tasks/:id/comments", async (req) => r.listComments(req.params.id));
  app.patch<Id>("/comments/:id", async (req) => r.patchComment(req.params.id, parse(PatchCommentBody, req.body)));
  app.delete<Id>("/comments/:id", async (req, reply) => {
    await r.deleteComment(req.params.id);
    return reply.status(204).send();
  });
  app.post<Id>("/tasks/:id/update-from-base", async (req) => r.updateFromBase(req.params.id, parse(UpdateFromBaseBody, req.body ?? {})));
  app.post<Id>("/tasks/:id/update-from-base/continue", async (req) => r.continueUpdate(req.params.id, parse(UpdateStepBody, req.body)));
  app.post<Id>("/tasks/:id/update-from-base/abort", async (req) => r.abortUpdate(req.params.id, parse(UpdateStepBody, req.body)));
  app.get<Id>("/tasks/:id/conflicts", async (req) => r.conflicts(req.params.id, parse(ConflictsQuery, req.query, "query").repositoryId));
  app.post<Id>("/tasks/:id/conflicts/send", { config: { arbitraryText: ["prompt"] } }, async (req, reply) =>
    reply.status(202).send(sessionView(await r.sendConflicts(req.params.id, parse(SendConflictsBody, req.body)))),
  );
  app.post<Id>("/tasks/:id/merge", async (req) => r.merge(req.params.id, parse(MergeBody, req.body ?? {})));
  app.post<Id>("/tasks/:id/pull-requests", async (req, reply) =>
    reply.status(201).send(await r.createPullRequests(req.params.id, parse(CreatePullRequestBody, req.body ?? {}))),
  );
  app.get<Id>("/tasks/:id/pull-requests", async (req) => r.listPullRequests(req.params.id));
  app.post<Id>("/tasks/:id/pull-requests/refresh", async (req) => r.refreshPullRequests(req.params.id));
  app.post<Id>("/tasks/:id/pull-requests/feedback", async (req, reply) => {
    const body = parse(FeedbackBody, req.body);
    return reply.status(202).send(sessionView(await r.feedback(req.params.id, body.sessionId)));
  });
  app.post<Id>("/tasks/:id/commit", async (req, reply) => reply.status(201).send(await r.commit(req.params.id, parse(CommitBody, req.body))));
}
