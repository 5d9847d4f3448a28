import { z } from "zod";
import { PermissionPolicy } from "./schemas-agents.js";

/**
 * WEB-44 `PATCH /agents/:name`: the person's permission policy and sandbox for one agent
 * profile, over what agents.json (or the built-in) says; at least one field. In force for the
 * next session the server starts, no restart.
 */
export const PatchAgentBody = z
  .object({
    permissionPolicy: PermissionPolicy.optional(),
    sandbox: z.enum(["confined", "off"]).optional(),
  })
  .strict()
  .refine((b) => b.permissionPolicy !== undefined || b.sandbox !== undefined, { message: "give permissionPolicy or sandbox", path: ["permissionPolicy"] });
export type PatchAgentBody = z.infer<typeof PatchAgentBody>;

/** WEB-44 `PUT /settings/editor`: the command "Open in editor" runs with a worktree's path (one line). */
export const PutEditorBody = z
  .object({
    command: z
      .string()
      .trim()
      .min(1, "the editor command is empty")
      .max(1000)
      .refine((c) => !/[\r\n]/.test(c), "the editor command is one line"),
  })
  .strict();
export type PutEditorBody = z.infer<typeof PutEditorBody>;

/** WEB-44 `GET|PUT|DELETE /settings/editor`: the command in force and where it comes from. */
export const EditorSetting = z.object({
  command: z.string().nullable(),
  /** `person`: set through the API (wins); `environment`: GROVE_EDITOR; `none`: Open in editor is refused. */
  source: z.enum(["person", "environment", "none"]),
});
export type EditorSetting = z.infer<typeof EditorSetting>;
