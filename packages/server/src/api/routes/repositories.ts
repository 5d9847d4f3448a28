import type { REPOSITORY_OPERATIONS } from "@grove/protocol/operations";
import { repositoryView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import type { HandlersOf } from "../operation-routes.js";

/** The repositories Grove creates worktrees of. */
export function repositoryHandlers(orch: Orchestrator): HandlersOf<typeof REPOSITORY_OPERATIONS> {
  return {
    addRepository: async ({ body }) => repositoryView(await orch.addRepository(body)),
    listRepositories: async () => (await orch.listRepositories()).map(repositoryView),
    getRepository: async ({ params }) => repositoryView(await orch.getRepository(params.id)),
    removeRepository: async ({ params }) => {
      await orch.removeRepository(params.id);
      return undefined;
    },
    updateRepositorySettings: async ({ params, body }) => repositoryView(await orch.patchRepository(params.id, body)),
  };
}
