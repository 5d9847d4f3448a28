import type { CreateSessionBody } from "@grove/protocol";
import { AppError } from "../../domain/errors.js";
import type { SessionRecord, TaskRecord } from "../../domain/records.js";
import type { McpGrant } from "../../mcp/tokens.js";
import type { Deps } from "../context.js";
import { assertTaskWorkable } from "../lifecycle/lifecycle.js";
import { createTask, getTaskOr404 } from "../tasks/tasks.js";

/** MCP-3: the per-task limits of subtasks (docs/specs/mcp.md). */
export const SUBTASK_LIMITS = {
  /** How deep a tree of subtasks may grow (a person's task is depth 0). */
  depth: 3,
  /** Children one task may have (archived ones count: they were made). */
  count: 10,
  /** Sessions with a live agent among a task's whole subtree. */
  runningAgents: 3,
};

/** Sessions whose agent is up: what the running-agent limit counts. */
const LIVE_STATES: ReadonlySet<SessionRecord["state"]> = new Set(["starting", "running", "waiting_for_input"]);

/** The subtasks of `taskId` (live and archived), oldest first. */
export async function childrenOf(deps: Pick<Deps, "store">, taskId: string): Promise<TaskRecord[]> {
  const pages = await Promise.all([false, true].map((archived) => deps.store.listTaskPage({ archived, parentId: taskId }, {})));
  return pages.flatMap((p) => p.rows).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}

/** Whether `taskId` is `rootId` or one of its subtasks (at any depth). */
export async function inSubtree(deps: Pick<Deps, "store">, rootId: string, taskId: string): Promise<boolean> {
  let id: string | null | undefined = taskId;
  for (let hops = 0; id && hops <= SUBTASK_LIMITS.depth + 1; hops++) {
    if (id === rootId) return true;
    id = (await deps.store.getTaskAnyState(id))?.parentId;
  }
  return false;
}

async function depthOf(deps: Pick<Deps, "store">, task: TaskRecord): Promise<number> {
  let depth = 0;
  let parent = task.parentId;
  while (parent && depth <= SUBTASK_LIMITS.depth + 1) {
    depth++;
    parent = (await deps.store.getTaskAnyState(parent))?.parentId;
  }
  return depth;
}

async function liveAgentsBelow(deps: Pick<Deps, "store">, taskId: string): Promise<number> {
  let n = 0;
  for (const child of await childrenOf(deps, taskId)) {
    n += (await deps.store.listSessions(child.id)).filter((s) => LIVE_STATES.has(s.state)).length;
    n += await liveAgentsBelow(deps, child.id);
  }
  return n;
}

/** A subtask as the tools show it: state, the outcome of its latest session, no host paths. */
export async function subtaskOut(deps: Pick<Deps, "store">, t: TaskRecord): Promise<Record<string, unknown>> {
  const sessions = await deps.store.listSessions(t.id);
  const last = sessions.at(-1);
  return {
    id: t.id,
    title: t.title,
    state: t.state,
    parentId: t.parentId ?? null,
    archived: t.archivedAt !== null,
    outcome: last ? { sessionId: last.id, agent: last.agent, state: last.state, lastTurn: last.lastTurn ?? null } : null,
  };
}

/** The ports (orchestrator/context.ts) Subtasks uses. */
export type SubtasksPorts = Pick<Deps, "store" | "git" | "profiles" | "bus" | "home" | "now" | "remote">;

/**
 * MCP-3: `subtask_create` — a child task of the caller's task (or of a task of its subtree), on
 * the parent's repositories or named ones, optionally started with an agent profile and a
 * prompt. The depth, count and running-agent limits are checked before anything is created
 * (`409 subtask_limit`); creates under one parent run one at a time, so two calls cannot both
 * take the last place.
 */
export class Subtasks {
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly deps: SubtasksPorts,
    private readonly startSession: (taskId: string, body: CreateSessionBody) => Promise<SessionRecord>,
  ) {}

  create(
    grant: McpGrant,
    parent: TaskRecord,
    args: { title: string; description?: string; repositoryIds?: string[]; agent?: string; prompt?: string },
  ): Promise<unknown> {
    const prev = this.chains.get(parent.id) ?? Promise.resolve();
    const run = prev.catch(() => undefined).then(() => this.createNow(grant, parent, args));
    this.chains.set(parent.id, run);
    void run
      .finally(() => {
        if (this.chains.get(parent.id) === run) this.chains.delete(parent.id);
      })
      .catch(() => undefined);
    return run;
  }

  private async createNow(
    grant: McpGrant,
    parent: TaskRecord,
    args: { title: string; description?: string; repositoryIds?: string[]; agent?: string; prompt?: string },
  ): Promise<unknown> {
    // MCP-3.7: an archived task, or one whose cleanup is under way, gets no new subtask: it would
    // be left open below a task whose archive already asked about its subtasks.
    await assertTaskWorkable(this.deps, parent.id);
    const starts = args.agent !== undefined || args.prompt !== undefined;
    const callerSession = await this.deps.store.getSession(grant.sessionId);
    const agent = args.agent ?? callerSession?.agent;
    // A named profile must exist before the child does: nothing is created for a typo.
    if (starts && agent !== undefined && !this.deps.profiles.some((p) => p.name === agent)) {
      throw new AppError("agent_unknown", `no agent profile named ${JSON.stringify(agent)}`, { field: "agent", known: this.deps.profiles.map((p) => p.name) });
    }
    const depth = (await depthOf(this.deps, parent)) + 1;
    if (depth > SUBTASK_LIMITS.depth) throw limit("depth", SUBTASK_LIMITS.depth, `a subtask of ${parent.id} would be at depth ${depth}`);
    const children = await childrenOf(this.deps, parent.id);
    if (children.length >= SUBTASK_LIMITS.count) throw limit("count", SUBTASK_LIMITS.count, `task ${parent.id} has ${children.length} subtasks already`);
    if (starts) {
      const root = await this.rootOf(grant.taskId);
      const live = await liveAgentsBelow(this.deps, root);
      if (live >= SUBTASK_LIMITS.runningAgents)
        throw limit("runningAgents", SUBTASK_LIMITS.runningAgents, `${live} agents already run in the subtasks of ${root}`);
    }
    const repositories = args.repositoryIds?.length
      ? args.repositoryIds.map((repositoryId) => {
          const same = parent.repositories.find((r) => r.repositoryId === repositoryId);
          return same ? { repositoryId, baseBranch: same.baseBranch } : { repositoryId };
        })
      : parent.repositories.map((r) => ({ repositoryId: r.repositoryId, baseBranch: r.baseBranch }));
    const child = await createTask(
      this.deps,
      { title: args.title, ...(args.description !== undefined ? { description: args.description } : {}), repositories },
      parent.id,
    );
    let session: SessionRecord | undefined;
    if (starts)
      session = await this.startSession(child.id, { ...(agent !== undefined ? { agent } : {}), ...(args.prompt !== undefined ? { prompt: args.prompt } : {}) });
    return { task: await subtaskOut(this.deps, child), session: session ? { id: session.id, agent: session.agent, state: session.state } : null };
  }

  /** The topmost task the caller's grant reaches (its own task): the running-agent limit's scope. */
  private async rootOf(taskId: string): Promise<string> {
    return (await getTaskOr404(this.deps, taskId)).id;
  }
}

function limit(which: "depth" | "count" | "runningAgents", value: number, why: string): AppError {
  return new AppError("subtask_limit", `${why}; the ${which} limit is ${value}`, { limit: which, value });
}
