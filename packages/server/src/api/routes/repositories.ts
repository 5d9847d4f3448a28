import type { FastifyInstance } from "fastify";
import { CreateRepositoryBody, PatchRepositoryBody } from "@grove/protocol";
import { repositoryView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { parse } from "../validate.js";

export function repositoryRoutes(app: FastifyInstance, orch: Orchestrator): void {
  app.post("/repositories", async (req, reply) => {
    const body = parse(CreateRepositoryBody, req.body);
    return reply.status(201).send(repositoryView(await orch.addRepository(body)));
  });
  app.get("/repositories", async () => (await orch.listRepositories()).map(repositoryView));
  app.get<{ Params: { id: string } }>("/repositories/:id", async (req) => repositoryView(await orch.getRepository(req.params.id)));
  app.delete<{ Params: { id: string } }>("/repositories/:id", async (req, reply) => {
    await orch.removeRepository(req.params.id);
    return reply.status(204).send();
  });
  app.patch<{ Params: { id: string } }>("/repositories/:id", async (req) =>
    repositoryView(await orch.patchRepository(req.params.id, parse(PatchRepositoryBody, req.body ?? {}))),
  );
}
