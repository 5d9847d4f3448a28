/** WEB-44: the Settings page's own calls (agent profile choices and daily caps, the editor command). */
import type { PatchAgentBody, PutDailyBudgetBody } from "@grove/protocol";
import { call } from "../api/client.js";

export const patchAgent = (name: string, body: PatchAgentBody) => call("patchAgent", { params: { name }, body });
export const putAgentBudget = (name: string, body: PutDailyBudgetBody) => call("putAgentBudget", { params: { name }, body });
export const resetAgentBudget = (name: string) => call("resetAgentBudget", { params: { name } });
export const getEditor = () => call("getEditor");
export const putEditor = (command: string) => call("putEditor", { body: { command } });
export const resetEditor = () => call("resetEditor");
export const EDITOR_KEY = ["settings", "editor"] as const;
