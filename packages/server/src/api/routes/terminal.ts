import { existsSync } from "node:fs";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import { AppError } from "../../domain/errors.js";
import type { Orchestrator } from "../../orchestrator/orchestrator.js";
import { openInEditor } from "../../orchestrator/editor.js";
import { terminals } from "../../orchestrator/terminals.js";
import { parse } from "../validate.js";
import { pipeWebSocket } from "../forward-ws.js";

const TerminalQuery = z.object({
  repositoryId: z.string().min(1).max(100),
  cols: z.coerce.number().int().min(2).max(500).default(100),
  rows: z.coerce.number().int().min(2).max(300).default(30),
});
const EditorBody = z.object({ repositoryId: z.string().min(1).max(100) }).strict();
const Input = z.discriminatedUnion("type", [
  z.object({ type: z.literal("input"), data: z.string().max(64 * 1024) }),
  z.object({ type: z.literal("resize"), cols: z.number().int(), rows: z.number().int() }),
]);

type Id = { Params: { id: string } };

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
 * the shell's output as text. `POST /tasks/:id/open-in-editor` runs `GROVE_EDITOR`.
 */
export function terminalRoutes(
  app: FastifyInstance,
  orch: Orchestrator,
  opts: { editor?: string | undefined; env: NodeJS.ProcessEnv; cluster?: { runnerId: string; secret: string | undefined } },
): void {
  const owner = {};
  app.addHook("onClose", async () => terminals.killOwner(owner));
  const cwdOf = new WeakMap<FastifyRequest, { cwd: string; q: z.infer<typeof TerminalQuery> }>();

  app.get<Id>(
    "/tasks/:id/terminal",
    {
      websocket: true,
      // Refuse before the upgrade, so a bad request gets an ordinary JSON error answer.
      preValidation: async (req) => {
        const q = parse(TerminalQuery, req.query, "query");
        // The task lives on another runner; the handler pipes to it (forward.ts).
        if (req.groveForwardTo) return;
        cwdOf.set(req, { cwd: await worktreeOf(orch, req.params.id, q.repositoryId), q });
      },
    },
    (socket, req) => {
      if (req.groveForwardTo && opts.cluster?.secret)
        return pipeWebSocket(socket, req.groveForwardTo, req.url, opts.cluster.runnerId, opts.cluster.secret, req.grovePerson === true);
      const { cwd, q } = cwdOf.get(req)!;
      const session = terminals.attach(
        { taskId: req.params.id, repositoryId: q.repositoryId, cwd, cols: q.cols, rows: q.rows, env: opts.env, owner },
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
  );

  app.post<Id>("/tasks/:id/open-in-editor", async (req, reply) => {
    const body = parse(EditorBody, req.body);
    if (!opts.editor) throw new AppError("editor_not_configured", "no editor configured: set GROVE_EDITOR (e.g. code)");
    const path = await worktreeOf(orch, req.params.id, body.repositoryId);
    await openInEditor(opts.editor, path, opts.env);
    return reply.status(202).send({ path });
  });
}
