import type { Selectable } from "kysely";
import type { Db, QuestionsTable } from "./schema.js";

/** MCP-3: an agent's question to the person. */
export interface QuestionRecord {
  id: string;
  taskId: string;
  sessionId: string;
  inboxItemId: string;
  text: string;
  choices: string[] | null;
  state: "open" | "answered" | "timed_out";
  answer: string | null;
  createdAt: string;
  deadlineAt: string;
  answeredAt: string | null;
}

function toQuestion(r: Selectable<QuestionsTable>): QuestionRecord {
  return {
    id: r.id,
    taskId: r.task_id,
    sessionId: r.session_id,
    inboxItemId: r.inbox_item_id,
    text: r.text,
    choices: r.choices ? (JSON.parse(r.choices) as string[]) : null,
    state: r.state as QuestionRecord["state"],
    answer: r.answer,
    createdAt: r.created_at,
    deadlineAt: r.deadline_at,
    answeredAt: r.answered_at,
  };
}

/** MCP-2: one task's latest progress report. */
export interface TaskProgress {
  sessionId: string;
  status: string;
  plan: { content: string; status: "pending" | "in_progress" | "completed" }[] | null;
  updatedAt: string;
}

/** Persistence of what agents report through Grove's MCP server (migration 019). Reached as `store.mcp`. */
export class McpStore {
  constructor(private readonly db: () => Db) {}

  /** Replaces the task's progress report (the latest one wins). */
  async setProgress(taskId: string, p: TaskProgress): Promise<void> {
    const row = { session_id: p.sessionId, status: p.status, plan: p.plan ? JSON.stringify(p.plan) : null, updated_at: p.updatedAt };
    await this.db()
      .insertInto("task_progress")
      .values({ task_id: taskId, ...row })
      .onConflict((oc) => oc.column("task_id").doUpdateSet(row))
      .execute();
  }

  async insertQuestion(q: QuestionRecord): Promise<void> {
    await this.db()
      .insertInto("questions")
      .values({
        id: q.id,
        task_id: q.taskId,
        session_id: q.sessionId,
        inbox_item_id: q.inboxItemId,
        text: q.text,
        choices: q.choices ? JSON.stringify(q.choices) : null,
        state: q.state,
        answer: q.answer,
        created_at: q.createdAt,
        deadline_at: q.deadlineAt,
        answered_at: q.answeredAt,
      })
      .execute();
  }

  async getQuestion(id: string): Promise<QuestionRecord | undefined> {
    const r = await this.db().selectFrom("questions").selectAll().where("id", "=", id).executeTakeFirst();
    return r && toQuestion(r);
  }

  /** The questions behind these inbox items (the inbox's `choices` and `answer`). */
  async questionsOfItems(itemIds: readonly string[]): Promise<QuestionRecord[]> {
    if (itemIds.length === 0) return [];
    const rows = await this.db()
      .selectFrom("questions")
      .selectAll()
      .where("inbox_item_id", "in", [...itemIds])
      .execute();
    return rows.map(toQuestion);
  }

  /** Compare-and-set open → answered / timed_out; undefined when it was not open any more. */
  async closeQuestion(id: string, to: "answered" | "timed_out", answer: string | null, now: string): Promise<QuestionRecord | undefined> {
    const r = await this.db()
      .updateTable("questions")
      .set({ state: to, answer, answered_at: now })
      .where("id", "=", id)
      .where("state", "=", "open")
      .returningAll()
      .executeTakeFirst();
    return r && toQuestion(r);
  }

  async getProgress(taskId: string): Promise<TaskProgress | undefined> {
    const r = await this.db().selectFrom("task_progress").selectAll().where("task_id", "=", taskId).executeTakeFirst();
    if (!r) return undefined;
    return { sessionId: r.session_id, status: r.status, plan: r.plan ? (JSON.parse(r.plan) as TaskProgress["plan"]) : null, updatedAt: r.updated_at };
  }
}
