import type { TASK_OPERATIONS } from "@grove/protocol/operations";
import { sessionView, taskView } from "../../domain/views.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import type { HandlersOf } from "../operation-routes.js";

/** Tasks, their sessions, environment and changes. */
export function taskHandlers(orch: Orchestrator): HandlersOf<typeof TASK_OPERATIONS> {
  return {
    createTask: async ({ body }) => taskView(await orch.createTask(body)),
    listTasks: async ({ query }) => orch.queryTasks(query),
    countTasks: async ({ query }) => orch.countTasks(query),
    getTask: async ({ params }) => {
      const t = await orch.getTaskWithRunner(params.id);
      return { ...taskView(t), runnerId: t.runnerId, runnerState: t.runnerState, runnerLabels: t.runnerLabels, progress: t.progress };
    },
    updateTask: async ({ params, body }) => taskView(await orch.patchTask(params.id, body)),
    startSession: async ({ params, body }) => sessionView(await orch.startSession(params.id, body)),
    listTaskSessions: async ({ params, query }) => {
      if (query.limit !== undefined) return orch.sessionPage(params.id, query.limit, query.cursor);
      return (await orch.listSessions(params.id)).map(sessionView);
    },
    getTaskEnvironment: async ({ params }) => orch.getEnvironment(params.id),
    restoreTaskEnvironment: async ({ params }) => orch.restoreEnvironment(params.id),
    getTaskChanges: async ({ params }) => orch.changes(params.id),
    getTaskFileDiff: async ({ params, query }) => orch.fileDiff(params.id, query.repositoryId, query.path, query.worktreeId, query.scope),
  };
}
