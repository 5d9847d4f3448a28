import type { LIFECYCLE_OPERATIONS } from "@grove/protocol/operations";
import { cleanupJobView } from "../../domain/cleanup-job.js";
import { taskView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import type { HandlersOf } from "../operation-routes.js";

/** Lifecycle operations (LC-1 … LC-8): archive, unarchive, delete and the trash, environment reset, cleanup jobs, doctor. */
export function lifecycleHandlers(orch: Orchestrator): HandlersOf<typeof LIFECYCLE_OPERATIONS> {
  return {
    archiveTask: async ({ params, body }) => ({ jobId: (await orch.archiveTask(params.id, body.children)).id }),
    unarchiveTask: async ({ params }) => taskView(await orch.unarchiveTask(params.id)),
    // LIVE-5: the trash of deleted tasks, and restoring one.
    listTrash: async () => orch.listTrash(),
    restoreDeletedTask: async ({ params }) => taskView(await orch.restoreDeletedTask(params.id)),
    deleteTask: async ({ params, query }) => ({ jobId: (await orch.deleteTask(params.id, query.discardChanges === "true")).id }),
    resetTaskEnvironment: async ({ params }) => ({ jobId: (await orch.resetEnvironment(params.id)).id }),
    listCleanupJobs: async ({ query }) => {
      if (query.limit !== undefined) return orch.cleanupJobPage(query.taskId, query.limit, query.cursor);
      return (await orch.listCleanupJobs(query.taskId)).map(cleanupJobView);
    },
    auditWorktrees: async () => orch.doctor(),
  };
}
