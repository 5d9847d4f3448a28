import { AGENT_OPERATIONS } from "./agents.js";
import { INBOX_OPERATIONS } from "./inbox.js";
import { LIFECYCLE_OPERATIONS } from "./lifecycle.js";
import { META_OPERATIONS } from "./meta.js";
import type { Operation } from "./operation.js";
import { REPOSITORY_OPERATIONS } from "./repositories.js";
import { REVIEW_OPERATIONS } from "./review.js";
import { SESSION_OPERATIONS } from "./sessions.js";
import { SETTINGS_OPERATIONS } from "./settings.js";
import { TASK_OPERATIONS } from "./tasks.js";
import { TERMINAL_OPERATIONS } from "./terminal.js";
import { USAGE_OPERATIONS } from "./usage.js";
import { WORKFLOW_OPERATIONS } from "./workflows.js";

/** Every operation of the HTTP API under `/api/v1`, keyed by operationId. */
export const API_OPERATIONS = {
  ...META_OPERATIONS,
  ...REPOSITORY_OPERATIONS,
  ...TASK_OPERATIONS,
  ...SESSION_OPERATIONS,
  ...AGENT_OPERATIONS,
  ...LIFECYCLE_OPERATIONS,
  ...REVIEW_OPERATIONS,
  ...INBOX_OPERATIONS,
  ...USAGE_OPERATIONS,
  ...WORKFLOW_OPERATIONS,
  ...TERMINAL_OPERATIONS,
  ...SETTINGS_OPERATIONS,
} satisfies Record<string, Operation>;
