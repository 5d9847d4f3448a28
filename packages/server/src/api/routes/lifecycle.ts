import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ArchiveTaskBody, MAX_PAGE_LIMIT } from "@grove/protocol";
import { cleanupJobView } from "../../domain/cleanup-job.js";
import { taskView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { parse } from "../validate.js";

type Id = { Params: { id: string } };
const DeleteQuery = z.object({ discardChanges: z.enum(["true", "false"]).optional() }).strict();
const JobsQuery = z
  .object({
    taskId: z.string().min(1).max(100).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).optional(),
    cursor: z.string().min(1).max(1000).optional(),
  })
  .strict()
  .refine((q) => q.cursor === undefined || q.limit !== undefined, { message: "a cursor needs a limit", path: ["cursor"] });

/** Lifecycle operations (LC-1 … LC-8): archive, unarchive, delete, environment reset, cleanup jobs, doctor. */
export function lifecycleRoutes(app: FastifyInstance, orch: Orchestrator): void {
  app.post<Id>("/tasks/:id/archive", async (req, reply) =>
    reply.status(202).send({ jobId: (await orch.archiveTask(req.params.id, parse(ArchiveTaskBody, req.body ?? {}).children)).id }),
  );
  app.post<Id>("/tasks/:id/unarchive", async (req) => taskView(await orch.unarchiveTask(req.params.id)));
  // LIVE-5: the trash of deleted tasks, and restoring one.
  app.get("/trash", async () => orch.listTrash());
  app.post<Id>("/tasks/:id/restore-deleted", async (req) => taskView(await orch.restoreDeletedTask(req.params.id)));
  app.delete<Id>("/tasks/:id", async (req, reply) => {
    const q = parse(DeleteQuery, req.query, "query");
    return reply.status(202).send({ jobId: (await orch.deleteTask(req.params.id, q.discardChanges === "true")).id });
  });
  app.post<Id>("/tasks/:id/environment/reset", async (req, reply) => reply.status(202).send({ jobId: (await orch.resetEnvironment(req.params.id)).id }));
  app.get("/cleanup-jobs", async (req) => {
    const q = parse(JobsQuery, req.query, "query");
    if (q.limit !== undefined) return orch.cleanupJobPage(q.taskId, q.limit, q.cursor);
    return (await orch.listCleanupJobs(q.taskId)).map(cleanupJobView);
  });
  app.get("/doctor", async () => orch.doctor());
}
