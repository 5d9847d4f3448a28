import { isMap, isNode, isPair, isScalar, LineCounter, parseDocument, visit, type Document } from "yaml";
import { AppError } from "./errors.js";
import { cronProblem, isTimeZone } from "./workflow-schedule.js";
import {
  ACTION_KINDS,
  RUN_FIELDS,
  REVIEW_COMMENT_FIELDS,
  SCHEDULE_FIELDS,
  BOARD_STEPS,
  type BoardStep,
  TEMPLATE_FIELDS,
  WorkflowAction,
  type WorkflowDefinition,
  WorkflowDefinitionSchema,
  type WorkflowStepDef,
} from "./workflow.js";

type Path = (string | number)[];

/** A valid workflow: its definition and the repository it is for (null: global), with that field's line. */
export interface ParsedWorkflow {
  definition: WorkflowDefinition;
  repositoryId: string | null;
  repositoryLine: number;
  /** The repository a schedule creates its tasks in, with the line naming it (checked by the caller). */
  scheduleRepository?: { id: string; line: number };
  /** The repository whose issues the issues trigger polls, with the line naming it (checked by the caller). */
  issuesRepository?: { id: string; line: number };
}

/** What validation needs to know of the world: the agent profiles a step may start. */
export interface WorkflowContext {
  agents: ReadonlySet<string>;
}

/** The parsed YAML with what maps a path back to its line. */
class Located {
  constructor(
    readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** 1-based line of the node at `path` (or of its key `key`), falling back to the nearest parent that exists. */
  lineOf(path: Path, key?: string): number {
    for (let p = [...path]; ; p = p.slice(0, -1)) {
      const node = p.length === 0 ? this.doc.contents : this.doc.getIn(p, true);
      if (key !== undefined && p.length === path.length && isMap(node)) {
        const pair = node.items.find((i) => isPair(i) && isScalar(i.key) && i.key.value === key);
        if (pair && isNode(pair.key) && pair.key.range) return this.lines.linePos(pair.key.range[0]).line;
      }
      if (isNode(node) && node.range) return this.lines.linePos(node.range[0]).line;
      if (p.length === 0) return 1;
    }
  }

  fail(path: Path, message: string, key?: string): never {
    const line = this.lineOf(path, key);
    const field = [...path, ...(key === undefined ? [] : [key])].join(".") || "(document)";
    throw new AppError("invalid_workflow", `line ${line}: ${field}: ${message}`, { line, path: field });
  }
}

/**
 * The document as plain data. Aliases are the person's to use (anchors that share an action
 * list), but an alias to no anchor (a bare `*x`), one that contains itself, or an expansion past
 * 100 aliases is their YAML error at the alias's line (SEC-8: never a 500, never a cycle handed on).
 */
function resolvedJs(doc: Document, lines: LineCounter): unknown {
  const fail = (message: string): never => {
    let pos = 0;
    visit(doc, {
      Alias(_, node) {
        pos = node.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
    const line = lines.linePos(pos).line;
    throw new AppError("invalid_workflow", `line ${line}: ${message}`, { line, path: "(document)" });
  };
  let js: unknown;
  try {
    js = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return fail((e as Error).message.split("\n")[0] ?? "invalid alias");
  }
  const seen = new Set<unknown>();
  const acyclic = (v: unknown, path: Set<unknown>): boolean => {
    if (v === null || typeof v !== "object") return true;
    if (path.has(v)) return false;
    if (seen.has(v)) return true;
    path.add(v);
    const ok = Object.values(v).every((c) => acyclic(c, path));
    path.delete(v);
    seen.add(v);
    return ok;
  };
  let hasAlias = false;
  visit(doc, {
    Alias(_, node) {
      hasAlias = node !== undefined;
      return visit.BREAK;
    },
  });
  if (hasAlias && !acyclic(js, new Set())) fail("an alias refers to a node that contains it (a recursive structure)");
  return js;
}

/**
 * WF-1: parses and checks a workflow's YAML (JSON is YAML too). Every refusal is
 * `invalid_workflow` naming the line: YAML syntax, a field of the wrong shape, an unknown
 * action, agent profile, template field or step, a cycle of automatic moves without a guard.
 */
export function parseWorkflow(source: string, ctx: WorkflowContext): ParsedWorkflow {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at: Located = new Located(doc, lines);
  const syntax = doc.errors[0];
  if (syntax) {
    const line = lines.linePos(syntax.pos[0]).line;
    throw new AppError("invalid_workflow", `line ${line}: ${syntax.message.split("\n")[0] ?? "invalid YAML"}`, { line, path: "(document)" });
  }
  const shape = WorkflowDefinitionSchema.safeParse(resolvedJs(doc, lines));
  if (!shape.success) {
    const issue = shape.error.issues[0]!;
    const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
    const keys = (issue as { keys?: string[] }).keys;
    if (issue.code === "unrecognized_keys" && keys?.[0]) at.fail(path, `unknown field`, keys[0]);
    at.fail(path, issue.message);
  }
  const raw = shape.data;
  const steps: WorkflowStepDef[] = [];
  const seen = new Set<string>();
  raw.steps.forEach((s, i) => {
    const id = knownStep(at, ["steps", i, "id"], s.id);
    if (seen.has(id)) at.fail(["steps", i, "id"], `step ${id} is listed twice`);
    seen.add(id);
    const onEnter = s.onEnter.map((a, j) => action(at, ["steps", i, "onEnter", j], a, ctx));
    const on: WorkflowStepDef["on"] = {};
    for (const [outcome, to] of Object.entries(s.on)) if (to !== undefined) on[outcome as keyof typeof on] = knownStep(at, ["steps", i, "on", outcome], to);
    steps.push({
      id,
      ...(s.wipLimit !== undefined ? { wipLimit: s.wipLimit } : {}),
      ...(s.guard ? { guard: s.guard } : {}),
      ...(s.archiveAfterDays !== undefined ? { archiveAfterDays: s.archiveAfterDays } : {}),
      onEnter,
      on,
    });
  });
  const triggers: WorkflowDefinition["triggers"] = {};
  if (raw.triggers.checksFailed) {
    if (raw.triggers.checksFailed.prompt) template(at, ["triggers", "checksFailed", "prompt"], raw.triggers.checksFailed.prompt);
    triggers.checksFailed = raw.triggers.checksFailed;
  }
  if (raw.triggers.merged) triggers.merged = { to: knownStep(at, ["triggers", "merged", "to"], raw.triggers.merged.to) };
  const sched = raw.triggers.schedule;
  if (sched) {
    const path = ["triggers", "schedule"];
    const problem = cronProblem(sched.cron);
    if (problem) at.fail([...path, "cron"], `invalid cron expression ${JSON.stringify(sched.cron)}: ${problem}`);
    if (!isTimeZone(sched.timeZone))
      at.fail([...path, "timeZone"], `unknown time zone ${JSON.stringify(sched.timeZone)} (an IANA name such as Europe/Berlin, or UTC)`);
    template(at, [...path, "title"], sched.title, SCHEDULE_FIELDS);
    if (sched.brief) template(at, [...path, "brief"], sched.brief, SCHEDULE_FIELDS);
    const repositoryId = sched.repositoryId ?? raw.repositoryId ?? undefined;
    if (repositoryId === undefined) at.fail(["triggers"], "a schedule of a global workflow names the repository its tasks are for (repositoryId)", "schedule");
    triggers.schedule = {
      cron: sched.cron,
      timeZone: sched.timeZone,
      title: sched.title,
      ...(sched.brief ? { brief: sched.brief } : {}),
      repositoryId,
      step: knownStep(at, [...path, "step"], sched.step),
    };
  }
  const issues = raw.triggers.issues;
  if (issues) {
    const repositoryId = issues.repositoryId ?? raw.repositoryId ?? undefined;
    if (repositoryId === undefined)
      at.fail(["triggers"], "an issues trigger of a global workflow names the repository whose issues it polls (repositoryId)", "issues");
    triggers.issues = { label: issues.label, repositoryId, step: knownStep(at, ["triggers", "issues", "step"], issues.step), pollSeconds: issues.pollSeconds };
  }
  const rc = raw.triggers.reviewComments;
  if (rc) {
    const path = ["triggers", "reviewComments"];
    if (rc.agent !== undefined && !ctx.agents.has(rc.agent))
      at.fail([...path, "agent"], `unknown agent profile "${rc.agent}" (known: ${[...ctx.agents].sort().join(", ")})`);
    if (rc.prompt) template(at, [...path, "prompt"], rc.prompt, [...TEMPLATE_FIELDS, ...REVIEW_COMMENT_FIELDS]);
    triggers.reviewComments = { pollSeconds: rc.pollSeconds, ...(rc.agent ? { agent: rc.agent } : {}), ...(rc.prompt ? { prompt: rc.prompt } : {}) };
  }
  const bm = raw.triggers.baseMoved;
  if (bm) {
    if (bm.prompt) template(at, ["triggers", "baseMoved", "prompt"], bm.prompt);
    triggers.baseMoved = { maxRounds: bm.maxRounds, mode: bm.mode, pollSeconds: bm.pollSeconds, ...(bm.prompt ? { prompt: bm.prompt } : {}) };
  }
  if (raw.budget && raw.budget.cost === undefined && raw.budget.tokens === undefined) at.fail(["budget"], "a budget names cost, tokens or both");
  const def: WorkflowDefinition = { steps, triggers, ...(raw.budget ? { budget: raw.budget } : {}) };
  noUnguardedCycle(at, def);
  const repositoryId = raw.repositoryId ?? null;
  const scheduleRepository = triggers.schedule
    ? {
        id: triggers.schedule.repositoryId,
        line: raw.triggers.schedule?.repositoryId ? at.lineOf(["triggers", "schedule"], "repositoryId") : at.lineOf([], "repositoryId"),
      }
    : undefined;
  const issuesRepository = triggers.issues
    ? {
        id: triggers.issues.repositoryId,
        line: raw.triggers.issues?.repositoryId ? at.lineOf(["triggers", "issues"], "repositoryId") : at.lineOf([], "repositoryId"),
      }
    : undefined;
  return {
    definition: def,
    repositoryId,
    repositoryLine: repositoryId === null ? 1 : at.lineOf([], "repositoryId"),
    ...(scheduleRepository ? { scheduleRepository } : {}),
    ...(issuesRepository ? { issuesRepository } : {}),
  };
}

function knownStep(at: Located, path: Path, id: string): BoardStep {
  if (!(BOARD_STEPS as readonly string[]).includes(id)) at.fail(path, `unknown step "${id}" (steps are the board's columns: ${BOARD_STEPS.join(", ")})`);
  return id as BoardStep;
}

function action(at: Located, path: Path, value: unknown, ctx: WorkflowContext): WorkflowAction {
  const kind = (value as { action?: unknown } | null)?.action;
  if (typeof kind !== "string" || !(ACTION_KINDS as readonly string[]).includes(kind)) {
    at.fail(typeof kind === "string" ? [...path, "action"] : path, `unknown action ${JSON.stringify(kind ?? null)} (one of ${ACTION_KINDS.join(", ")})`);
  }
  const r = WorkflowAction.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const keys = (issue as { keys?: string[] }).keys;
    if (issue.code === "unrecognized_keys" && keys?.[0]) at.fail(path, "unknown field", keys[0]);
    at.fail([...path, ...issue.path.filter((p): p is string | number => typeof p !== "symbol")], issue.message);
  }
  const a = r.data;
  if (a.action === "start_session") {
    if (!ctx.agents.has(a.agent)) at.fail([...path, "agent"], `unknown agent profile "${a.agent}" (known: ${[...ctx.agents].sort().join(", ")})`);
    template(at, [...path, "prompt"], a.prompt);
  }
  if (a.action === "send_comments" && a.prompt) template(at, [...path, "prompt"], a.prompt);
  if (a.action === "move") knownStep(at, [...path, "to"], a.to);
  if (a.action === "pr") {
    if (a.title) template(at, [...path, "title"], a.title);
    if (a.body) template(at, [...path, "body"], a.body);
  }
  if (a.action === "run") {
    if (a.onSuccess) knownStep(at, [...path, "onSuccess", "to"], a.onSuccess.to);
    if (a.onFailure?.to) knownStep(at, [...path, "onFailure", "to"], a.onFailure.to);
    if (a.onFailure?.prompt) template(at, [...path, "onFailure", "prompt"], a.onFailure.prompt, [...TEMPLATE_FIELDS, ...RUN_FIELDS]);
  }
  return a;
}

function template(at: Located, path: Path, text: string, fields: readonly string[] = TEMPLATE_FIELDS): void {
  for (const m of text.matchAll(/\{\{\s*([^}\s]*)\s*\}\}/g)) {
    if (!fields.includes(m[1] ?? "")) at.fail(path, `unknown template field {{${m[1]}}} (known: ${fields.join(", ")})`);
  }
}

/**
 * An onEnter `move` runs without anyone: steps whose moves lead back to themselves would move
 * a task around for ever. Such a cycle is allowed only when a step on it has a guard.
 */
function noUnguardedCycle(at: Located, def: WorkflowDefinition): void {
  const moves = new Map<string, { to: string; path: Path }[]>();
  def.steps.forEach((s, i) => {
    moves.set(
      s.id,
      s.onEnter.flatMap((a, j): { to: string; path: Path }[] => {
        if (a.action === "move") return [{ to: a.to, path: ["steps", i, "onEnter", j, "to"] }];
        // WF-2.13: a command that keeps failing (or passing) moves the task every time, like an onEnter move.
        if (a.action === "run") {
          return [
            ...(a.onSuccess ? [{ to: a.onSuccess.to, path: ["steps", i, "onEnter", j, "onSuccess", "to"] }] : []),
            ...(a.onFailure?.to ? [{ to: a.onFailure.to, path: ["steps", i, "onEnter", j, "onFailure", "to"] }] : []),
          ];
        }
        return [];
      }),
    );
  });
  const guarded = (id: string) => def.steps.find((s) => s.id === id)?.guard !== undefined;
  for (const start of moves.keys()) {
    const stack: { id: string; trail: string[] }[] = [{ id: start, trail: [start] }];
    const visited = new Set<string>();
    while (stack.length > 0) {
      const { id, trail } = stack.pop()!;
      for (const m of moves.get(id) ?? []) {
        if (m.to === start) {
          if (!trail.some(guarded)) at.fail(m.path, `a cycle of automatic moves without a guard: ${[...trail, start].join(" → ")}`);
          continue;
        }
        if (visited.has(m.to)) continue;
        visited.add(m.to);
        stack.push({ id: m.to, trail: [...trail, m.to] });
      }
    }
  }
}
