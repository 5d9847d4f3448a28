import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { CreateSessionBody, CreateTaskBody, DiffScope, ListTasksQuery, PageQuery, PatchTaskBody, TaskCountsQuery } from "@grove/protocol";
import { sessionView, taskView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { parse } from "../validate.js";

const DiffQuery = z.object({
  repositoryId: z.string().min(1),
  path: z.string().min(1).max(4096),
  worktreeId: z.string().min(1).optional(),
  scope: DiffScope.optional(),
});

type Id = { Params: { id: string } };

export function taskRoutes(app: FastifyInstance, orch: Orchestrator): void {
  app.post("/tasks", async (req, reply) => reply.status(201).send(taskView(await orch.createTask(parse(CreateTaskBody, req.body)))));
  app.get("/tasks", async (req) => orch.queryTasks(parse(ListTasksQuery, req.query, "query")));
  app.get("/tasks/counts", async (req) => orch.countTasks(parse(TaskCountsQuery, req.query, "query")));
  app.get<Id>("/tasks/:id", async (req) => {
    const t = await orch.getTaskWithRunner(req.params.id);
    return { ...taskView(t), runnerId: t.runnerId, runnerState: t.runnerState, runnerLabels: t.runnerLabels, progress: t.progress };
  });
  app.patch<Id>("/tasks/:id", async (req) => taskView(await orch.patchTask(req.params.id, parse(PatchTaskBody, req.body))));

  app.post<Id>("/tasks/:id/sessions", { config: { arbitraryText: ["prompt"] } }, async (req, reply) => {
    const body = parse(CreateSessionBody, req.body ?? {});
    return reply.status(201).send(sessionView(await orch.startSession(req.params.id, body)));
  });
  app.get<Id>("/tasks/:id/sessions", async (req) => {
    const q = parse(PageQuery, req.query, "query");
    if (q.limit !== undefined) return orch.sessionPage(req.params.id, q.limit, q.cursor);
    return (await orch.listSessions(req.params.id)).map(sessionView);
  });

  app.get<Id>("/tasks/:id/environment", async (req) => orch.getEnvironment(req.params.id));
  app.post<Id>("/tasks/:id/environment/restore", async (req) => orch.restoreEnvironment(req.params.id));

  app.get<Id>("/tasks/:id/changes", async (req) => orch.changes(req.params.id));
  app.get<Id>("/tasks/:id/changes/diff", async (req) => {
    const q = parse(DiffQuery, req.query, "query");
    return orch.fileDiff(req.params.id, q.repositoryId, q.path, q.worktreeId, q.scope);
  });
}
