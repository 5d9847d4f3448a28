/** WEB-44: the Settings page's own calls (agent profile choices, the editor command). */
import type { AgentProfile, EditorSetting, PatchAgentBody } from "@grove/protocol";
import { api, enc } from "../api/client.js";

export const patchAgent = (name: string, body: PatchAgentBody) => api.patch<AgentProfile>(`/agents/${enc(name)}`, body);
export const getEditor = () => api.get<EditorSetting>("/settings/editor");
export const putEditor = (command: string) => api.put<EditorSetting>("/settings/editor", { command });
export const resetEditor = () => api.del<EditorSetting>("/settings/editor");
export const EDITOR_KEY = ["settings", "editor"] as const;
