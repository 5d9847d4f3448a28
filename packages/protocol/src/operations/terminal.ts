import { z } from "zod";
import { operation } from "./operation.js";

/** The shell's repository and its first size. */
export const TerminalQuery = z.object({
  repositoryId: z.string().min(1).max(100),
  cols: z.coerce.number().int().min(2).max(500).default(100),
  rows: z.coerce.number().int().min(2).max(300).default(30),
});

/** `POST /tasks/:id/open-in-editor`: which repository's worktree. */
export const OpenInEditorBody = z.object({ repositoryId: z.string().min(1).max(100) }).strict();

/** A shell in a task's worktree, and opening a worktree in the person's editor. */
export const TERMINAL_OPERATIONS = {
  openTaskTerminal: operation({
    method: "get",
    path: "/tasks/{id}/terminal",
    summary:
      "WebSocket: a shell in the task's worktree (?repositoryId=&cols=&rows=); frames in {type:'input',data}|{type:'resize',cols,rows}, out: output text",
    query: TerminalQuery,
    queryDocs: { repositoryId: "the repository whose worktree the shell starts in", cols: "columns (2–500, default 100)", rows: "rows (2–300, default 30)" },
    errors: ["terminal_unavailable", "not_found"],
    forward: { scope: "task", ws: true },
    websocket: true,
  }),
  openTaskInEditor: operation({
    method: "post",
    path: "/tasks/{id}/open-in-editor",
    summary: "Open a worktree in the server's GROVE_EDITOR ({repositoryId})",
    body: OpenInEditorBody,
    response: z.object({ path: z.string() }),
    status: 202,
    errors: ["editor_not_configured", "terminal_unavailable"],
    forward: { scope: "task" },
  }),
};
