import type { AgentBudget, DailyBudget, PutBudgetBody, PutDailyBudgetBody, TaskBudget, UsageQuery, UsageReport } from "@grove/protocol";
import { modelOption } from "../../domain/agent-state.js";
import { AppError } from "../../domain/errors.js";
import { newId } from "../../domain/ids.js";
import type { SessionRecord, TaskRecord } from "../../domain/records.js";
import { budgetRatio, dayOf, DEFAULT_PRICES, estimateCost, type UsageTotals } from "../../domain/usage.js";
import type { Deps } from "../context.js";
import { SessionUsageRecorder, type PendingUsage } from "./session-usage.js";
import { usageReport } from "./usage-report.js";

/** A budget a task's next turn is measured against. */
interface Scope {
  /** `task:<id>` of the task (or parent task) whose budget it is, `workflow:<name>`, `agent:<profile>:<day>` or `daily:<day>`. */
  key: string;
  kind: "task" | "workflow" | "agent" | "daily";
  taskId?: string;
  workflow?: string;
  /** The agent profile whose daily cap it is. */
  agent?: string;
  limit: TaskBudget;
  used: UsageTotals;
  /** The budget's version: an alert is raised once per version and threshold. */
  version: string;
}

/** The share of a budget at which a person is told (one inbox item). */
const ALERT_AT = 0.8;

/** The ports (orchestrator/context.ts) UsageService uses. */
export type UsageServicePorts = Pick<Deps, "store" | "agents" | "bus" | "log" | "runnerId" | "now" | "usage">;

/**
 * USE-1/USE-2: records what agents report, keeps budgets and the global daily cap, and gates new
 * turns. Budgets are measured in the database (the task totals, the day totals of every runner),
 * so they hold across runners; each runner cancels its own turns once a budget is spent, which
 * bounds an overshoot to the turns in flight when it was reached.
 */
export class UsageService {
  private readonly recorders = new Map<string, SessionUsageRecorder>();
  /** Sessions whose running turn a person let run past the budget ("continue once"): never cancelled for it. */
  private readonly granted = new Set<string>();
  /** Per session: the workflow that started it, or null (see `workflowOf`). */
  private readonly startedBy = new Map<string, string | null>();
  /** Per live session of this runner: its agent profile (whose daily cap cancels its turns). */
  private readonly agentOf = new Map<string, string>();

  constructor(private readonly deps: UsageServicePorts) {}

  recorderFor(session: SessionRecord): SessionUsageRecorder {
    this.agentOf.set(session.id, session.agent);
    let r = this.recorders.get(session.id);
    if (!r) {
      r = new SessionUsageRecorder(this.deps, (p) => this.record(session, p));
      this.recorders.set(session.id, r);
    }
    return r;
  }

  forget(sessionId: string): void {
    this.recorders.delete(sessionId);
    this.granted.delete(sessionId);
    this.startedBy.delete(sessionId);
    this.agentOf.delete(sessionId);
  }

  /** The session's turn ended: a continue-once grant it ran under is used up. */
  turnEnded(sessionId: string): void {
    this.granted.delete(sessionId);
  }

  /**
   * USE-2: before a new turn of the task starts. Past a budget (the task's, a parent's, the daily
   * cap of the session's agent profile, or the daily cap) the prompt is refused with `budget_exceeded` unless a person granted one more turn,
   * which this takes (compare-and-set: two prompts racing for one grant start one turn).
   */
  async gate(taskId: string, sessionId: string, agent: string): Promise<void> {
    const over = (await this.scopesOf(taskId, sessionId, agent)).find((s) => budgetRatio(s.limit, s.used) >= 1);
    if (!over) return;
    if (await this.deps.store.usage.takeContinue(taskId)) {
      this.granted.add(sessionId);
      return;
    }
    const what =
      over.kind === "daily"
        ? "the daily cap"
        : over.kind === "agent"
          ? `the daily cap of agent ${over.agent}`
          : over.kind === "workflow"
            ? `the budget of workflow ${over.workflow}`
            : over.taskId === taskId
              ? "its budget"
              : `the budget of its parent task ${over.taskId}`;
    const raise =
      over.kind === "daily"
        ? "raises the daily cap (PUT /usage/daily-budget, `grove usage budget`)"
        : over.kind === "agent"
          ? `raises the agent's daily cap (PUT /agents/${over.agent}/budget, the Settings page)`
          : over.kind === "workflow"
            ? `raises the workflow's budget (grove workflow apply)`
            : `raises the budget (PUT /tasks/${taskId}/budget)`;
    throw new AppError(
      "budget_exceeded",
      `task ${taskId} reached ${what}: ${describe(over.used, over.limit)}; a person ${raise} or lets one more turn run (PUT /tasks/${taskId}/budget {continueOnce})`,
      {
        taskId,
        scope: over.kind,
        ...(over.taskId ? { budgetTaskId: over.taskId } : {}),
        ...(over.workflow ? { workflow: over.workflow } : {}),
        ...(over.agent ? { agent: over.agent } : {}),
        limit: over.limit,
        used: over.used,
      },
    );
  }

  /** A prompt that took a grant did not start after all: the grant goes back. */
  async ungate(taskId: string, sessionId: string): Promise<void> {
    if (this.granted.delete(sessionId)) await this.deps.store.usage.returnContinue(taskId);
  }

  /** USE-2 `PUT /tasks/:id/budget` (a person only; the route is person-only). */
  async putBudget(task: TaskRecord, body: PutBudgetBody): Promise<void> {
    const now = this.deps.now();
    if (body.continueOnce) {
      if (body.cost !== undefined || body.tokens !== undefined)
        throw new AppError("invalid_request", "continueOnce goes alone: raise the budget or continue once", { field: "continueOnce" });
      await this.deps.store.usage.grantContinue(task.id, now);
    } else {
      await this.deps.store.usage.setBudget(
        task.id,
        { ...(body.cost !== undefined ? { cost: body.cost } : {}), ...(body.tokens !== undefined ? { tokens: body.tokens } : {}) },
        now,
      );
    }
    // The person acted: the budget items of the task are settled.
    for (const item of await this.deps.store.inbox.resolveOf({ taskId: task.id }, ["budget"], now)) this.deps.bus.publish("inbox.updated", { item });
  }

  /** USE-2 `GET /usage/daily-budget`: the cap in force and today's spend over every runner. */
  async dailyBudget(): Promise<DailyBudget> {
    const cap = await this.dailyCap();
    const day = dayOf(this.deps.now());
    return {
      budget: cap?.limit ?? {},
      source: cap?.source ?? "none",
      setAt: cap?.source === "person" ? cap.version : null,
      day,
      used: await this.deps.store.usage.dayTotals(day),
    };
  }

  /**
   * USE-2 `PUT /usage/daily-budget` (person-only): a new cap in force at once on every runner (they
   * read it from the shared database at each check), no restart; `reset` falls back to
   * GROVE_DAILY_BUDGET. The person acted: open daily-cap items are settled.
   */
  async putDailyBudget(body: PutDailyBudgetBody | "reset"): Promise<DailyBudget> {
    const now = this.deps.now();
    await this.deps.store.usage.setDailyBudget(
      body === "reset" ? undefined : { ...(body.cost !== undefined ? { cost: body.cost } : {}), ...(body.tokens !== undefined ? { tokens: body.tokens } : {}) },
      now,
    );
    for (const item of await this.deps.store.inbox.resolveCausePrefix("budget:daily:", now)) this.deps.bus.publish("inbox.updated", { item });
    return this.dailyBudget();
  }

  /** USE-2: an agent profile's daily cap (`{}` without one) and what its sessions spent today over every runner. */
  async agentBudget(name: string): Promise<AgentBudget> {
    const set = await this.deps.store.agentBudgets.get(name);
    const day = dayOf(this.deps.now());
    return { budget: set?.budget ?? {}, setAt: set?.setAt ?? null, day, used: await this.deps.store.agentBudgets.dayTotals(name, day) };
  }

  /**
   * USE-2 `PUT /agents/:name/budget` (person-only; `reset` or `{}` removes the cap): in force at
   * once on every runner, which read it from the shared database at each check. The person acted:
   * the profile's open cap items are settled.
   */
  async putAgentBudget(name: string, body: PutDailyBudgetBody | "reset"): Promise<AgentBudget> {
    const now = this.deps.now();
    const budget =
      body === "reset" ? undefined : { ...(body.cost !== undefined ? { cost: body.cost } : {}), ...(body.tokens !== undefined ? { tokens: body.tokens } : {}) };
    await this.deps.store.agentBudgets.set(name, budget && (budget.cost !== undefined || budget.tokens !== undefined) ? budget : undefined, now);
    for (const item of await this.deps.store.inbox.resolveCausePrefix(`budget:agent:${name}:`, now)) this.deps.bus.publish("inbox.updated", { item });
    return this.agentBudget(name);
  }

  /** USE-1 `GET /usage`. */
  report(q: UsageQuery): Promise<UsageReport> {
    return usageReport(this.deps, q, (id) => this.subtree(id));
  }

  /**
   * Writes one (coalesced) report of a session, publishes it, and enforces the budgets it touches.
   * A report is a handful of statements (the write's transaction, the budget chain, the subtree's
   * and the day's totals): it runs for every `usage_update` an agent sends (USE-1's bench).
   */
  private async record(session: SessionRecord, p: PendingUsage): Promise<void> {
    const at = this.deps.now();
    // The model a turn's tokens are priced at: the one the agent reports using now.
    const model = p.tokens ? modelOption((await this.deps.store.getSession(session.id))?.agentState)?.currentValue : undefined;
    const recorded = await this.deps.store.usage.record({
      id: newId("use"),
      sessionId: session.id,
      taskId: session.taskId,
      agent: session.agent,
      runnerId: this.deps.runnerId,
      at,
      day: dayOf(at),
      ...(p.tokens ? { tokens: p.tokens } : {}),
      ...(p.cost ? { reportedCost: p.cost } : {}),
      ...(p.context ? { context: p.context } : {}),
      estimate: (t) => estimateCost(this.deps.usage?.prices ?? DEFAULT_PRICES, model ?? session.agent, t),
    });
    if (!recorded) return;
    this.deps.bus.publish("usage.updated", { sessionId: session.id, taskId: session.taskId, usage: recorded.usage });
    if (recorded.added.tokens === 0 && recorded.added.cost === 0) return;
    await this.enforce(session);
  }

  /** Alerts at 80 % and, at 100 %, cancels the running turn (every turn of this runner for the daily cap). */
  private async enforce(session: SessionRecord): Promise<void> {
    let task: TaskRecord | undefined;
    for (const s of await this.scopesOf(session.taskId, session.id, session.agent)) {
      const ratio = budgetRatio(s.limit, s.used);
      if (ratio < ALERT_AT) continue;
      const full = ratio >= 1;
      // The task (its title names the alert) is read only once a budget is near.
      task ??= await this.deps.store.getTaskAnyState(session.taskId);
      if (!task) return;
      await this.alert(task, session.id, s, full);
      if (!full) continue;
      // The daily caps stop every turn they cover on this runner (the others cancel theirs at their next report).
      const ids =
        s.kind === "daily"
          ? this.deps.agents.sessionIds()
          : s.kind === "agent"
            ? this.deps.agents.sessionIds().filter((id) => this.agentOf.get(id) === s.agent)
            : [session.id];
      for (const id of ids) {
        if (this.granted.has(id)) continue;
        const handle = this.deps.agents.get(id);
        if (!handle?.busy) continue;
        this.deps.log.warn({ sessionId: id, taskId: task.id, scope: s.key }, "budget reached: cancelling the running turn (USE-2)");
        await handle.cancel();
      }
    }
  }

  private async alert(task: TaskRecord, sessionId: string, s: Scope, full: boolean): Promise<void> {
    const level = full ? 100 : 80;
    const name =
      s.kind === "daily"
        ? "the daily cap"
        : s.kind === "agent"
          ? `agent ${s.agent}'s daily cap`
          : s.kind === "workflow"
            ? `workflow ${s.workflow}'s budget`
            : s.taskId === task.id
              ? "the budget"
              : "the parent task's budget";
    const item = await this.deps.store.inbox.raise({
      id: newId("inbox"),
      kind: "budget",
      taskId: task.id,
      sessionId,
      // One item per budget version and threshold, whichever runner or session crossed it.
      causeKey: `budget:${s.key}:${s.version}:${level}`,
      title: `${task.title}: ${full ? `${name} is spent; new prompts wait for you` : `${level} % of ${name} used`}`,
      detail: describe(s.used, s.limit),
      createdAt: this.deps.now(),
    });
    if (item) this.deps.bus.publish("inbox.updated", { item });
  }

  /**
   * The budgets a task's turns count against: its own, each parent task's, the budget of the
   * workflow that started the session (if one did), the daily cap of the session's agent profile,
   * the daily cap.
   */
  private async scopesOf(taskId: string, sessionId: string, agent: string): Promise<Scope[]> {
    const out: Scope[] = [];
    const name = await this.workflowOf(sessionId);
    const workflow = name ? await this.deps.store.workflows.get(name) : undefined;
    if (workflow?.definition.budget) {
      // Its version is the budget's: applying a new version (a raised budget) lets alerts fire again.
      out.push({
        key: `workflow:${workflow.name}`,
        kind: "workflow",
        workflow: workflow.name,
        limit: workflow.definition.budget,
        used: await this.deps.store.usage.workflowTotals(workflow.name),
        version: `v${workflow.version}`,
      });
    }
    for (const t of await this.deps.store.usage.budgetChain(taskId)) {
      if (!t.budget) continue;
      out.push({
        key: `task:${t.id}`,
        kind: "task",
        taskId: t.id,
        limit: t.budget,
        used: await this.deps.store.usage.subtreeTotals(t.id),
        version: t.setAt ?? "",
      });
    }
    const agentCap = await this.deps.store.agentBudgets.get(agent);
    if (agentCap) {
      const day = dayOf(this.deps.now());
      out.push({
        key: `agent:${agent}:${day}`,
        kind: "agent",
        agent,
        limit: agentCap.budget,
        used: await this.deps.store.agentBudgets.dayTotals(agent, day),
        version: agentCap.setAt,
      });
    }
    const cap = await this.dailyCap();
    if (cap && (cap.limit.cost !== undefined || cap.limit.tokens !== undefined)) {
      const day = dayOf(this.deps.now());
      out.push({ key: `daily:${day}`, kind: "daily", limit: cap.limit, used: await this.deps.store.usage.dayTotals(day), version: cap.version });
    }
    return out;
  }

  /**
   * The workflow that started the session, if one did. A workflow plans the session's id before
   * the session exists, so the answer never changes: read once per session (off the hot path of
   * every usage report).
   */
  private async workflowOf(sessionId: string): Promise<string | null> {
    let name = this.startedBy.get(sessionId);
    if (name === undefined) {
      name = (await this.deps.store.workflows.runOfSession(sessionId))?.workflow ?? null;
      this.startedBy.set(sessionId, name);
    }
    return name;
  }

  /** The daily cap in force: the person's (shared database) over GROVE_DAILY_BUDGET's. */
  private async dailyCap(): Promise<{ limit: TaskBudget; version: string; source: "person" | "config" } | undefined> {
    const set = await this.deps.store.usage.dailyBudget();
    if (set) return { limit: set.budget, version: set.setAt, source: "person" };
    const cap = this.deps.usage?.dailyCap;
    return cap ? { limit: cap, version: `${cap.cost ?? ""}/${cap.tokens ?? ""}`, source: "config" } : undefined;
  }

  /** The task and all its subtasks (whose usage a task budget and `GET /usage?taskId=` include). */
  private async subtree(taskId: string): Promise<string[]> {
    const all = new Set([taskId]);
    let level = [taskId];
    while (level.length > 0) {
      level = (await this.deps.store.usage.childrenOf(level)).filter((id) => !all.has(id));
      for (const id of level) all.add(id);
    }
    return [...all];
  }
}

function describe(used: UsageTotals, limit: TaskBudget): string {
  const parts: string[] = [];
  if (limit.cost !== undefined) parts.push(`${used.cost.toFixed(2)} of ${limit.cost.toFixed(2)} USD`);
  if (limit.tokens !== undefined) parts.push(`${used.tokens} of ${limit.tokens} tokens`);
  return parts.join(", ");
}
