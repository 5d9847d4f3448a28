import { z } from "zod";
import { WorkflowStepId } from "@grove/protocol";

/**
 * WF-1: a workflow's definition. Steps are the board's columns (`todo` … `failed`); a
 * workflow attaches behaviour to them: actions run on entering the step (`onEnter`), moves on
 * the outcome of the turn an action started (`on`), a guard on automated moves into the step,
 * a WIP limit. Columns a workflow does not list behave as on the plain board.
 */
export const BOARD_STEPS = WorkflowStepId.options;
export type BoardStep = z.infer<typeof WorkflowStepId>;

/** The task fields a prompt template may name as `{{field}}`. */
export const TEMPLATE_FIELDS = ["title", "brief", "comments", "checks", "step"] as const;

const text = z.string().min(1);

export const StartSessionAction = z.object({ action: z.literal("start_session"), agent: text, prompt: text }).strict();
export const SendCommentsAction = z.object({ action: z.literal("send_comments"), prompt: text.optional() }).strict();
export const MoveAction = z.object({ action: z.literal("move"), to: text }).strict();
/** The failing checks of the task's pull requests (name and log excerpt, through the provider API) → the working session. */
export const SendChecksAction = z.object({ action: z.literal("send_checks") }).strict();

/** The fields a `run` action's `onFailure.prompt` may name on top of the task's: the command, its exit code and output excerpt. */
export const RUN_FIELDS = ["command", "exitCode", "output"] as const;

/** The longest a `run` command may take (a day); its default is ten minutes. */
export const MAX_RUN_SECONDS = 86_400;

/**
 * WF-2.13: a command (`sh -c`) in the task's sandbox (the working session's agent confinement)
 * and workspace, with a timeout; its exit code and an output excerpt are recorded on the run.
 * `onSuccess` / `onFailure` move the task; `onFailure.prompt` sends the failure to the working
 * session (a timeout is a failure).
 */
export const RunCommandAction = z
  .object({
    action: z.literal("run"),
    command: text,
    timeoutSeconds: z.number().int().min(1).max(MAX_RUN_SECONDS).default(600),
    onSuccess: z.object({ to: text }).strict().optional(),
    onFailure: z.object({ to: text.optional(), prompt: text.optional() }).strict().optional(),
  })
  .strict();
export type RunCommandAction = z.infer<typeof RunCommandAction>;

/**
 * WF-2.15: opens the task's pull request, or pushes to the open one (the review code's path).
 * Never merges. A branch rewritten since the last push (a rebase) needs a force-push, which
 * only `forcePush: true` allows (with a lease on Grove's last push); otherwise the run fails.
 */
export const PullRequestAction = z
  .object({
    action: z.literal("pr"),
    title: text.optional(),
    body: z.string().optional(),
    draft: z.boolean().optional(),
    forcePush: z.boolean().default(false),
  })
  .strict();
export type PullRequestAction = z.infer<typeof PullRequestAction>;

export const ACTION_KINDS = ["start_session", "send_comments", "send_checks", "move", "run", "pr"] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

export const WorkflowAction = z.discriminatedUnion("action", [
  StartSessionAction,
  SendCommentsAction,
  SendChecksAction,
  MoveAction,
  RunCommandAction,
  PullRequestAction,
]);
export type WorkflowAction = z.infer<typeof WorkflowAction>;

/** Turn outcomes a step may move on (LIVE-2's outcomes, as the workflow sees them). */
/** `clean`: completed and the task has no open review comment (a reviewer found nothing); falls back to `completed`. */
export const TRANSITION_OUTCOMES = ["completed", "clean", "failed", "stalled"] as const;
export type TransitionOutcome = (typeof TRANSITION_OUTCOMES)[number];

/** The longest `archiveAfterDays` (ten years): past it a step's tasks are never archived in practice. */
export const MAX_ARCHIVE_DAYS = 3650;

/** `merged_pull_request`: an automated move into the step needs a merged pull request; a person's move is the approval. */
export const GUARDS = ["merged_pull_request"] as const;

export const WorkflowStep = z
  .object({
    id: text,
    wipLimit: z.number().int().min(1).optional(),
    guard: z.enum(GUARDS).optional(),
    /** WF-2.17: days in the step after which the task is archived (LC-2's durable archive); fractions allowed. */
    archiveAfterDays: z.number().positive().max(MAX_ARCHIVE_DAYS).optional(),
    onEnter: z.array(z.unknown()).default([]),
    on: z.object({ completed: text.optional(), clean: text.optional(), failed: text.optional(), stalled: text.optional() }).strict().default({}),
  })
  .strict();

/** The fields a schedule's title and brief may name: the tick's local date and time in its zone, and its UTC instant. */
export const SCHEDULE_FIELDS = ["date", "time", "at"] as const;

/** WF-2: a schedule creates one task per tick of a cron expression read in an IANA time zone. */
export const ScheduleTrigger = z
  .object({
    cron: text,
    timeZone: text.default("UTC"),
    title: text,
    brief: z.string().optional(),
    repositoryId: text.optional(),
    step: text.default("todo"),
  })
  .strict();

/** WF-2: open provider issues carrying a label become tasks (one per issue), polled every `pollSeconds`. */
export const IssuesTrigger = z
  .object({
    label: text,
    repositoryId: text.optional(),
    step: text.default("todo"),
    pollSeconds: z.number().int().min(1).max(86_400).default(60),
  })
  .strict();

/** The fields a review comment's prompt may name on top of the task's: where it is, who wrote it, what it says. */
export const REVIEW_COMMENT_FIELDS = ["path", "line", "author", "comment"] as const;

/**
 * WF-2.19: new review comments on the task's open pull request (polled every `pollSeconds`) go to
 * the agent, each once: to the working session, or to a new session of `agent` when named.
 */
export const ReviewCommentsTrigger = z
  .object({
    pollSeconds: z.number().int().min(1).max(86_400).default(60),
    agent: text.optional(),
    prompt: text.optional(),
  })
  .strict();

/**
 * WF-2.20: the base moved past the task's branch → update from base (`mode`); only when that
 * stops on conflicts, the conflicts go to the working session, at most `maxRounds` per task,
 * then one inbox item.
 */
export const BaseMovedTrigger = z
  .object({
    maxRounds: z.number().int().min(1).max(20).default(3),
    mode: z.enum(["rebase", "merge"]).default("rebase"),
    pollSeconds: z.number().int().min(1).max(86_400).default(300),
    prompt: text.optional(),
  })
  .strict();

/** WF-2 triggers: of the pull request (failed checks → the agent, capped rounds; merged → a step) and of the clock. */
export const WorkflowTriggers = z
  .object({
    checksFailed: z
      .object({ maxRounds: z.number().int().min(1).max(20).default(3), prompt: text.optional() })
      .strict()
      .optional(),
    merged: z.object({ to: text }).strict().optional(),
    schedule: ScheduleTrigger.optional(),
    issues: IssuesTrigger.optional(),
    reviewComments: ReviewCommentsTrigger.optional(),
    baseMoved: BaseMovedTrigger.optional(),
  })
  .strict()
  .default({});

export const WorkflowDefinitionSchema = z
  .object({
    name: text.optional(),
    repositoryId: text.nullable().optional(),
    steps: z.array(WorkflowStep).min(1),
    triggers: WorkflowTriggers,
    /** USE-2: what the sessions this workflow starts may spend together (cost in USD and/or tokens). */
    budget: z.object({ cost: z.number().positive().optional(), tokens: z.number().int().positive().optional() }).strict().optional(),
  })
  .strict();

export interface WorkflowStepDef {
  id: BoardStep;
  wipLimit?: number;
  guard?: (typeof GUARDS)[number];
  /** WF-2.17: archive a task once it has been this many days in the step (counted from its entry). */
  archiveAfterDays?: number;
  onEnter: WorkflowAction[];
  on: Partial<Record<TransitionOutcome, BoardStep>>;
}

export interface WorkflowDefinition {
  steps: WorkflowStepDef[];
  triggers: {
    checksFailed?: { maxRounds: number; prompt?: string };
    merged?: { to: BoardStep };
    schedule?: ScheduleDef;
    issues?: IssuesDef;
    reviewComments?: ReviewCommentsDef;
    baseMoved?: BaseMovedDef;
  };
  budget?: { cost?: number; tokens?: number };
}

/** A validated schedule: the repository is resolved (the trigger's, else the workflow's). */
export interface ScheduleDef {
  cron: string;
  timeZone: string;
  title: string;
  brief?: string;
  repositoryId: string;
  step: BoardStep;
}

/** WF-2.19: a validated review-comments trigger. */
export interface ReviewCommentsDef {
  pollSeconds: number;
  agent?: string;
  prompt?: string;
}

/** WF-2.20: a validated base-moved trigger. */
export interface BaseMovedDef {
  maxRounds: number;
  mode: "rebase" | "merge";
  pollSeconds: number;
  prompt?: string;
}

/** The default prompt of a review comment: the place, the author and the text on one labelled line. */
export const DEFAULT_REVIEW_COMMENT_PROMPT = "Review comment on {{path}} line {{line}} by {{author}}: {{comment}}";

/** A validated issues trigger: the repository is resolved (the trigger's, else the workflow's). */
export interface IssuesDef {
  label: string;
  repositoryId: string;
  step: BoardStep;
  pollSeconds: number;
}

/** The provider issue a task was created for. */
export interface IssueLink {
  repositoryId: string;
  number: number;
  url: string;
}

/**
 * WF-2: the run that creates a task a trigger asked for; never written in YAML. Its payload is
 * rendered when the run is queued, so a redo after a crash creates the very same task.
 */
export interface CreateTaskAction {
  action: "create_task";
  title: string;
  brief: string;
  repositoryId: string;
  step: BoardStep;
  /** Set when the task is for a provider issue (the issues trigger). */
  issue?: IssueLink;
}

/** WF-2: a comment on the provider issue naming the task created for it (read first: never twice). */
export interface IssueCommentAction {
  action: "issue_comment";
  repositoryId: string;
  number: number;
  body: string;
}

/** WF-2: closes the provider issue (the task's pull request merged). */
export interface IssueCloseAction {
  action: "issue_close";
  repositoryId: string;
  number: number;
}

/**
 * WF-2.13: a prompt rendered when it was queued (a failed command's output) → the task's working
 * session, exactly once (the target is recorded before the send, like `send_checks`).
 */
export interface PromptAction {
  action: "prompt";
  text: string;
}

/**
 * WF-2.17: archives the task through LC-2's durable archive (agents stopped, uncommitted work
 * saved); queued once the task has been `afterDays` in the step of its entry.
 */
export interface ArchiveAction {
  action: "archive";
  afterDays: number;
}

/**
 * WF-2.19: one review comment of the provider's pull request → the agent (its prompt rendered
 * when the run was queued): the working session, or a new session of `agent`.
 */
export interface PrCommentAction {
  action: "pr_comment";
  repositoryId: string;
  number: number;
  commentId: string;
  text: string;
  agent?: string;
}

/**
 * WF-2.20: one repository of the task brought up to its base (`base`: the commit seen); its
 * conflicts, if any, to the working session within the trigger's round cap.
 */
export interface UpdateBaseAction {
  action: "update_base";
  repositoryId: string;
  base: string;
  mode: "rebase" | "merge";
  maxRounds: number;
  prompt?: string;
}

/** What a run executes: a step's action, or a trigger's task creation or issue update. */
export type RunAction =
  | WorkflowAction
  | CreateTaskAction
  | IssueCommentAction
  | IssueCloseAction
  | PromptAction
  | ArchiveAction
  | PrCommentAction
  | UpdateBaseAction;

/** A stored workflow (the current version of one name). */
export interface WorkflowRecord {
  name: string;
  repositoryId: string | null;
  version: number;
  source: string;
  definition: WorkflowDefinition;
  stopped: boolean;
  createdAt: string;
  updatedAt: string;
}

/** WF-1: the built-in default workflow is today's board: every column, no automation. */
export const DEFAULT_WORKFLOW_NAME = "default";
export const DEFAULT_WORKFLOW_SOURCE = `# The plain board: every column, no automation (built in, read only).\nsteps:\n${BOARD_STEPS.map((s) => `  - id: ${s}\n`).join("")}`;

export function defaultWorkflow(at = "1970-01-01T00:00:00.000Z"): WorkflowRecord {
  return {
    name: DEFAULT_WORKFLOW_NAME,
    repositoryId: null,
    version: 1,
    source: DEFAULT_WORKFLOW_SOURCE,
    definition: { steps: BOARD_STEPS.map((id) => ({ id, onEnter: [], on: {} })), triggers: {} },
    stopped: false,
    createdAt: at,
    updatedAt: at,
  };
}

/** True when the workflow automates nothing: the board's own derivation from sessions applies. */
export function isPlainBoard(def: WorkflowDefinition): boolean {
  return def.steps.every((s) => s.onEnter.length === 0 && Object.keys(s.on).length === 0) && !def.triggers.checksFailed && !def.triggers.merged;
}

/**
 * Whether the engine records a task's step entries: when the workflow automates anything, or
 * times something from an entry (WF-2.17 `archiveAfterDays`, which leaves the board's own
 * derivation of columns from sessions alone).
 */
export function recordsEntries(def: WorkflowDefinition): boolean {
  return !isPlainBoard(def) || def.steps.some((s) => s.archiveAfterDays !== undefined);
}

export function stepOf(def: WorkflowDefinition, id: string): WorkflowStepDef | undefined {
  return def.steps.find((s) => s.id === id);
}

/** `{{field}}` → the field's value; unknown names were refused at validation. */
export function renderTemplate(template: string, fields: Partial<Record<string, string>>): string {
  return template.replace(/\{\{\s*([A-Za-z]+)\s*\}\}/g, (_m, name: string) => fields[name] ?? "");
}
