import { existsSync } from "node:fs";
import type { FastifyRequest } from "fastify";
import type { TERMINAL_OPERATIONS } from "@grove/protocol/operations";
import { z } from "zod";
import { AppError } from "../../domain/errors.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { openInEditor } from "../../orchestrator/editor.js";
import { terminals } from "../../orchestrator/terminals.js";
import type { HandlersOf } from "../operation-routes.js";
import { pipeWebSocket } from "../forward-ws.js";

const Input = z.discriminatedUnion("type", [
  z.object({ type: z.literal("input"), data: z.string().max(64 * 1024) }),
  z.object({ type: z.literal("resize"), cols: z.number().int(), rows: z.number().int() }),
]);

/** The active worktree of one repository of a live task, or `terminal_unavailable`. */
async function worktreeOf(orch: Orchestrator, taskId: string, repositoryId: string): Promise<string> {
  const task = await orch.getTask(taskId);
  if (task.archivedAt) throw new AppError("terminal_unavailable", "the task is archived: its worktrees were removed", { reason: "archived", taskId });
  const env = await orch.getEnvironment(taskId).catch((e: unknown) => {
    if (e instanceof AppError && e.code === "not_found")
      throw new AppError("terminal_unavailable", "the task has no worktrees yet: start a session first", { reason: "no_environment", taskId });
    throw e;
  });
  const row = env.repositories.find((r) => r.repositoryId === repositoryId && r.status === "active" && r.worktreePath);
  if (!row?.worktreePath)
    throw new AppError("terminal_unavailable", `repository ${repositoryId} has no worktree in this task`, { reason: "no_worktree", taskId, repositoryId });
  if (!existsSync(row.worktreePath))
    throw new AppError("terminal_unavailable", "the worktree is missing on disk: restore it first", { reason: "missing", taskId, repositoryId });
  return row.worktreePath;
}

/**
 * `GET /api/v1/tasks/:id/terminal?repositoryId=` (WebSocket): a shell in the task's worktree.
 * Registered under the API prefix, so the same auth, Host and Origin hooks guard it. Frames
 * from the page: `{type:"input",data}` and `{type:"resize",cols,rows}`; frames to the page:
 * the shell's output as text. `POST /tasks/:id/open-in-editor` runs `GROVE_EDITOR`. The
 * returned `close` kills the shells this server started (on the app's close).
 */
export function terminalHandlers(
  orch: Orchestrator,
  opts: { editor?: string | undefined; env: NodeJS.ProcessEnv; bwrap: string; cluster?: { runnerId: string; secret: string | undefined } },
): { handlers: HandlersOf<typeof TERMINAL_OPERATIONS>; close: () => Promise<void> } {
  const owner = {};
  const cwdOf = new WeakMap<FastifyRequest, string>();
  const handlers: HandlersOf<typeof TERMINAL_OPERATIONS> = {
    openTaskTerminal: {
      prepare: async ({ params, query, req }) => {
        // The task lives on another runner; connect pipes to it (forward.ts).
        if (req.groveForwardTo) return;
        cwdOf.set(req, await worktreeOf(orch, params.id, query.repositoryId));
      },
      connect: (socket, { params, query, req }) => {
        if (req.groveForwardTo && opts.cluster?.secret)
          return pipeWebSocket(socket, req.groveForwardTo, req.url, opts.cluster.runnerId, opts.cluster.secret, req.grovePerson === true);
        const session = terminals.attach(
          {
            taskId: params.id,
            repositoryId: query.repositoryId,
            cwd: cwdOf.get(req)!,
            cols: query.cols,
            rows: query.rows,
            env: opts.env,
            bwrap: opts.bwrap,
            owner,
          },
          {
            send: (d) => {
              if (socket.readyState === socket.OPEN && socket.bufferedAmount < 4 * 1024 * 1024) socket.send(d);
            },
            ended: (reason) => socket.close(1000, reason.slice(0, 120)),
          },
        );
        socket.on("message", (raw: Buffer) => {
          let msg: z.infer<typeof Input>;
          try {
            msg = Input.parse(JSON.parse(raw.toString("utf8")));
          } catch {
            return;
          }
          if (msg.type === "input") session.write(msg.data);
          else session.resize(msg.cols, msg.rows);
        });
        socket.on("close", () => session.detach());
      },
    },
    openTaskInEditor: async ({ params, body }) => {
      // WEB-44: the person's command (Settings) wins over GROVE_EDITOR.
      const editor = (await orch.editorSetting(opts.editor)).command;
      if (!editor) throw new AppError("editor_not_configured", "no editor configured: set one in Settings, or GROVE_EDITOR (e.g. code)");
      const path = await worktreeOf(orch, params.id, body.repositoryId);
      await openInEditor(editor, path, opts.env);
      return { path };
    },
  };
  return { handlers, close: () => terminals.killOwner(owner) };
}
