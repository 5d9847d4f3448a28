import { m001Initial } from "./001-initial.js";
import { m002CleanupJobs } from "./002-cleanup-jobs.js";
import { m003Credentials } from "./003-credentials.js";
import { m005Review } from "./005-review.js";
import { m006ListIndexes } from "./006-list-indexes.js";
import { m007AgentState } from "./007-agent-state.js";
import { m012Runners } from "./012-runners.js";
import { m013Placement } from "./013-placement.js";
import { m014CredentialKeyIds } from "./014-credential-key-ids.js";
import { m015TurnOutcomes } from "./015-turn-outcomes.js";
import { m016SessionSandbox } from "./016-session-sandbox.js";
import { m017Inbox } from "./017-inbox.js";
import { m018Trash } from "./018-trash.js";
import { m025Usage } from "./025-usage.js";
import { m019TaskProgress } from "./019-task-progress.js";
import { m020Questions } from "./020-questions.js";
import { m021TaskParent } from "./021-task-parent.js";
import { m024DailyBudget } from "./024-daily-budget.js";
import { m026Workflows } from "./026-workflows.js";
import { m028QueuedPrompts } from "./028-queued-prompts.js";
import { m029SparseCheckout } from "./029-sparse-checkout.js";
import { m030WorkflowRunResult } from "./030-workflow-run-result.js";
import { m031PersonSettings } from "./031-person-settings.js";
import { m032AgentBudgets } from "./032-agent-budgets.js";
import type { Migration } from "./migration.js";

/** Every migration, in the order they are applied. Append only. */
export const MIGRATIONS: readonly Migration[] = [
  m001Initial,
  m002CleanupJobs,
  m003Credentials,
  m005Review,
  m006ListIndexes,
  m007AgentState,
  m012Runners,
  m013Placement,
  m014CredentialKeyIds,
  m015TurnOutcomes,
  m016SessionSandbox,
  m017Inbox,
  m018Trash,
  m025Usage,
  m019TaskProgress,
  m020Questions,
  m021TaskParent,
  m024DailyBudget,
  m026Workflows,
  m028QueuedPrompts,
  m029SparseCheckout,
  m030WorkflowRunResult,
  m031PersonSettings,
  m032AgentBudgets,
];

export type { Migration } from "./migration.js";
