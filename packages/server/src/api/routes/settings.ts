import type { SETTINGS_OPERATIONS } from "@grove/protocol/operations";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import type { HandlersOf } from "../operation-routes.js";

/** WEB-44: the Settings page's agent profile choices and editor command (`editor`: GROVE_EDITOR). */
export function settingsHandlers(orch: Orchestrator, opts: { editor?: string | undefined }): HandlersOf<typeof SETTINGS_OPERATIONS> {
  return {
    patchAgent: async ({ params, body }) => orch.patchAgent(params.name, body),
    putAgentBudget: async ({ params, body }) => orch.putAgentBudget(params.name, body),
    resetAgentBudget: async ({ params }) => orch.putAgentBudget(params.name, "reset"),
    getEditor: async () => orch.editorSetting(opts.editor),
    putEditor: async ({ body }) => orch.setEditor(body.command, opts.editor),
    resetEditor: async () => orch.setEditor(undefined, opts.editor),
  };
}
