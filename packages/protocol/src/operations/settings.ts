import { AgentProfile, EditorSetting, PatchAgentBody, PutDailyBudgetBody, PutEditorBody } from "../index.js";
import { operation } from "./operation.js";

/** WEB-44: settings a person changes on the Settings page instead of in a file (the person only). */
export const SETTINGS_OPERATIONS = {
  patchAgent: operation({
    method: "patch",
    path: "/agents/{name}",
    summary:
      "Set an agent profile's permission policy and/or sandbox over agents.json's, kept in the database, in force for the next session (WEB-44; the person only)",
    body: PatchAgentBody,
    response: AgentProfile,
    errors: ["invalid_request", "not_found", "person_required"],
    personOnly: true,
  }),
  putAgentBudget: operation({
    method: "put",
    path: "/agents/{name}/budget",
    summary:
      "Set an agent profile's daily cap in cost and/or tokens over the sessions of that profile on every runner, in force at once ({} turns it off; USE-2; the person only)",
    body: PutDailyBudgetBody,
    bodyOptional: true,
    response: AgentProfile,
    errors: ["invalid_request", "not_found", "person_required"],
    personOnly: true,
  }),
  resetAgentBudget: operation({
    method: "delete",
    path: "/agents/{name}/budget",
    summary: "Drop an agent profile's daily cap (USE-2; the person only)",
    response: AgentProfile,
    errors: ["not_found", "person_required"],
    personOnly: true,
  }),
  getEditor: operation({
    method: "get",
    path: "/settings/editor",
    summary: "The command Open in editor runs: the person's, else GROVE_EDITOR (WEB-44)",
    response: EditorSetting,
  }),
  putEditor: operation({
    method: "put",
    path: "/settings/editor",
    summary: "Set the command Open in editor runs with a worktree's path; wins over GROVE_EDITOR, no restart (WEB-44; the person only)",
    body: PutEditorBody,
    response: EditorSetting,
    errors: ["invalid_request", "person_required"],
    personOnly: true,
  }),
  resetEditor: operation({
    method: "delete",
    path: "/settings/editor",
    summary: "Drop the person's editor command: GROVE_EDITOR applies again (WEB-44; the person only)",
    response: EditorSetting,
    errors: ["person_required"],
    personOnly: true,
  }),
};
