/** Kysely table types (schema.ts): The attention inbox and what agents report through Grove's MCP tools (LIVE-4, MCP-2, MCP-3). */

/** LIVE-4 (migration 017): the durable attention inbox. */
export interface InboxItemsTable {
  id: string;
  kind: string;
  task_id: string;
  session_id: string | null;
  cause_key: string;
  title: string;
  detail: string | null;
  state: string;
  read_at: string | null;
  created_at: string;
  resolved_at: string | null;
}

/** MCP-2 (migration 019): an agent's latest `report_progress` per task; `plan` is JSON. */
export interface TaskProgressTable {
  task_id: string;
  session_id: string;
  status: string;
  plan: string | null;
  updated_at: string;
}

/** MCP-3 (migration 020): an agent's `ask_user` questions; `choices` is JSON. */
export interface QuestionsTable {
  id: string;
  task_id: string;
  session_id: string;
  inbox_item_id: string;
  text: string;
  choices: string | null;
  state: string;
  answer: string | null;
  created_at: string;
  deadline_at: string;
  answered_at: string | null;
}
