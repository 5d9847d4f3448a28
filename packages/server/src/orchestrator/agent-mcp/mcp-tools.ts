import type { Changes, Comment } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import type { TaskRecord } from "../../domain/records.js";
import { taskView } from "../../domain/views.js";
import type { CallOutcome, McpBackend } from "../../mcp/gateway.js";
import type { McpGrant } from "../../mcp/tokens.js";
import type { ToolName } from "../../mcp/tool-catalog.js";
import type { Deps } from "../context.js";
import { taskChanges } from "../changes/changes.js";
import { createComment, listComments, patchComment } from "../review/review-comments.js";
import type { LiveSessions } from "../sessions/live-sessions.js";
import type { Questions } from "./questions.js";
import { childrenOf, inSubtree, subtaskOut, type Subtasks } from "./subtasks.js";
import { getTaskOr404, patchTask } from "../tasks/tasks.js";

type Args = Record<string, unknown>;

/** What the transcript shows of a call's arguments (bounded: a long comment body is cut). */
const ARG_CHARS = 2000;

/** The ports (orchestrator/context.ts) McpTools uses. */
export type McpToolsPorts = Pick<Deps, "store" | "git" | "worktrees" | "bus" | "log" | "home" | "now" | "remote">;

/**
 * MCP-2: the use cases behind Grove's MCP tools. Every tool acts on the calling session's own
 * task (or, with subtasks, its subtree); a call naming any other task is `403 mcp_forbidden`,
 * checked before anything is read or written. Answers carry no host paths and no secrets:
 * worktree paths are left out of the Changes summary.
 */
export class McpTools implements McpBackend {
  constructor(
    private readonly deps: McpToolsPorts,
    private readonly live: LiveSessions,
    private readonly questions: Questions,
    private readonly subtasks: Subtasks,
  ) {}

  async call(grant: McpGrant, tool: ToolName, args: Args, signal: AbortSignal): Promise<unknown> {
    switch (tool) {
      case "task_get":
        return this.taskGet(await this.target(grant, args.taskId));
      case "task_update":
        return this.taskUpdate(await this.target(grant, args.taskId), args);
      case "report_progress":
        return this.reportProgress(grant, args);
      case "subtask_create": {
        const parent = await this.target(grant, args.taskId);
        const { taskId: _t, ...rest } = args;
        return this.subtasks.create(grant, parent, rest as { title: string });
      }
      case "subtask_list": {
        const parent = await this.target(grant, args.taskId);
        return Promise.all((await childrenOf(this.deps, parent.id)).map((c) => subtaskOut(this.deps, c)));
      }
      case "subtask_get": {
        const t = await this.target(grant, args.taskId);
        if (t.id === grant.taskId) throw new AppError("invalid_request", "subtask_get reads a subtask; your own task is task_get", { field: "taskId" });
        return {
          ...(await subtaskOut(this.deps, t)),
          brief: t.description,
          changes: await this.changesSummary(t.id),
          subtasks: (await childrenOf(this.deps, t.id)).map((c) => c.id),
        };
      }
      case "board_list": {
        if (grant.scope !== "board") throw new AppError("mcp_forbidden", 'board_list needs an agent profile with mcp: "board"', { scope: grant.scope });
        const { rows } = await this.deps.store.listTaskPage({ archived: false }, {});
        return rows.map((t) => ({ id: t.id, title: t.title, state: t.state, parentId: t.parentId ?? null }));
      }
      case "ask_user":
        return this.questions.ask(grant, args as { question: string; choices?: string[]; timeoutSeconds?: number }, signal);
      case "comments_list":
        return (await listComments(this.deps, (await this.target(grant, args.taskId)).id)).map(commentOut);
      case "comment_create": {
        const task = await this.target(grant, args.taskId);
        const repositoryId = typeof args.repositoryId === "string" ? args.repositoryId : onlyRepository(task);
        const c = await createComment(this.deps, task.id, {
          repositoryId,
          path: String(args.path),
          line: Number(args.line),
          ...(args.side === "old" || args.side === "new" ? { side: args.side } : {}),
          body: String(args.body),
        });
        return commentOut(c);
      }
      case "comment_resolve": {
        const id = String(args.commentId);
        const c = await this.deps.store.review.getComment(id);
        // A comment of another task is answered as if it did not exist: nothing of it leaks.
        if (!c || !(await this.inScope(grant, c.taskId))) throw new AppError("not_found", `comment ${id} not found`, { id });
        return commentOut(await patchComment(this.deps, id, { state: args.resolved === false ? "open" : "resolved" }));
      }
    }
  }

  record(grant: McpGrant, tool: ToolName, args: Args, outcome: CallOutcome): void {
    void this.deps.store.getSession(grant.sessionId).then(
      (session) => {
        if (!session) return;
        const shown = JSON.stringify(args);
        this.live.recorderFor(session).note("tool", `grove: ${tool}`, {
          toolCallId: newId("mcp"),
          status: outcome.ok ? "completed" : "failed",
          kind: "other",
          mcp: {
            tool,
            arguments: shown.length > ARG_CHARS ? `${shown.slice(0, ARG_CHARS)}…` : args,
            outcome: outcome.ok ? "ok" : outcome.code,
            ...(outcome.ok ? {} : { message: outcome.message }),
          },
        });
      },
      (err: unknown) => this.deps.log.warn({ err, sessionId: grant.sessionId }, "mcp: recording a call failed"),
    );
  }

  /** The task a call acts on: the session's own unless it names one of its subtree. */
  private async target(grant: McpGrant, taskId: unknown): Promise<TaskRecord> {
    const id = typeof taskId === "string" && taskId !== "" ? taskId : grant.taskId;
    if (!(await this.inScope(grant, id))) throw new AppError("mcp_forbidden", `task ${id} is not this session's task or one of its subtasks`, { taskId: id });
    return getTaskOr404(this.deps, id);
  }

  /** MCP-2: the session's own task and its subtasks (any depth). */
  private async inScope(grant: McpGrant, taskId: string): Promise<boolean> {
    return inSubtree(this.deps, grant.taskId, taskId);
  }

  private async taskGet(task: TaskRecord): Promise<unknown> {
    const [env, comments, progress] = await Promise.all([
      this.deps.store.getEnvironmentByTask(task.id),
      listComments(this.deps, task.id),
      this.deps.store.mcp.getProgress(task.id),
    ]);
    const rows = env ? await this.deps.store.listEnvironmentRepos(env.id) : [];
    const repositories = await Promise.all(
      task.repositories.map(async (a) => {
        const repo = await this.deps.store.getRepository(a.repositoryId);
        const row = rows.find((r) => r.repositoryId === a.repositoryId && r.status === "active");
        return { repositoryId: a.repositoryId, name: repo?.name ?? null, baseBranch: a.baseBranch, branch: row?.worktreeBranch ?? null };
      }),
    );
    return {
      id: task.id,
      title: task.title,
      brief: task.description,
      state: task.state,
      repositories,
      comments: comments.filter((c) => c.state === "open").map(commentOut),
      changes: await this.changesSummary(task.id),
      progress: progress ? { status: progress.status, plan: progress.plan, updatedAt: progress.updatedAt } : null,
      parentId: task.parentId ?? null,
      subtasks: (await childrenOf(this.deps, task.id)).map((c) => ({ id: c.id, title: c.title, state: c.state })),
    };
  }

  /** The Changes without host paths; null when they cannot be read now (no environment yet, a missing worktree). */
  private async changesSummary(taskId: string): Promise<unknown> {
    let changes: Changes;
    try {
      changes = await taskChanges(this.deps, taskId);
    } catch {
      return null;
    }
    return changes.repositories.map((r) => ({
      repositoryId: r.repositoryId,
      branch: r.branch,
      baseBranch: r.baseBranch,
      ahead: r.ahead,
      behind: r.behind,
      files: r.files.map((f) => ({
        path: f.path,
        ...(f.oldPath ? { oldPath: f.oldPath } : {}),
        status: f.status,
        additions: f.additions,
        deletions: f.deletions,
      })),
    }));
  }

  private async taskUpdate(task: TaskRecord, args: Args): Promise<unknown> {
    const title = typeof args.title === "string" ? args.title : undefined;
    const toReview = args.state === "review";
    if (title === undefined && !toReview) throw new AppError("invalid_request", "give title or state", { field: "title" });
    // Never Done, never back from Done: a person decides that (MCP-2).
    if (toReview && task.state === "done") throw new AppError("mcp_forbidden", `task ${task.id} is done; only a person moves it`, { taskId: task.id });
    const updated = await patchTask(this.deps, task.id, { ...(title !== undefined ? { title } : {}), ...(toReview ? { state: "review" } : {}) });
    return { id: updated.id, title: updated.title, state: updated.state };
  }

  private async reportProgress(grant: McpGrant, args: Args): Promise<unknown> {
    const status = String(args.status);
    const plan = Array.isArray(args.plan) ? (args.plan as { content: string; status: "pending" | "in_progress" | "completed" }[]) : null;
    const updatedAt = this.deps.now();
    await this.deps.store.mcp.setProgress(grant.taskId, { sessionId: grant.sessionId, status, plan, updatedAt });
    const task = await getTaskOr404(this.deps, grant.taskId);
    this.deps.bus.publish("task.updated", { task: { ...taskView(task), progress: { status, plan, updatedAt } } });
    return { status, plan, updatedAt };
  }
}

function onlyRepository(task: TaskRecord): string {
  if (task.repositories.length === 1) return task.repositories[0]!.repositoryId;
  throw new AppError("invalid_request", `task ${task.id} has ${task.repositories.length} repositories; name repositoryId`, { field: "repositoryId" });
}

function commentOut(c: Comment): unknown {
  return { id: c.id, repositoryId: c.repositoryId, path: c.path, line: c.line, side: c.side, body: c.body, state: c.state, outdated: c.outdated };
}
