import type { ElicitationAsk } from "../../agents/agent-contract.js";
import type { PersonAnswer } from "../sessions/live-sessions.js";
import { choicesOf, fieldsToAsk, formFields, parseAnswer, questionOf, type FieldValue } from "../../domain/elicitation.js";
import { AppError } from "../../domain/errors.js";
import type { SessionRecord } from "../../domain/records.js";
import type { Deps } from "../context.js";
import type { Questions } from "./questions.js";

/** How often a field is asked again after an answer that does not fit it (a number, a length). */
const ASKS_PER_FIELD = 3;

/**
 * MCP-3: an agent's ACP form elicitation (Claude's AskUserQuestion arrives this way) answered in
 * the inbox, like `ask_user`: each field Grove asks (domain/elicitation.ts) is one durable inbox
 * question, in order, and the typed answers are the form's content. A form Grove cannot show is
 * declined (the agent asks otherwise); no answer in time, or the agent withdrawing the request,
 * is `cancel`. Only the person answers: the inbox answer route is person-only (SBX-5).
 */
export class Elicitations {
  constructor(
    private readonly deps: Pick<Deps, "log">,
    private readonly questions: Questions,
  ) {}

  /** The form's answer for the agent, and what the person answered in their own words (the transcript's note says it). */
  async answer(session: SessionRecord, ask: ElicitationAsk, signal: AbortSignal): Promise<PersonAnswer> {
    const fields = formFields(ask.requestedSchema);
    if ("unsupported" in fields) {
      this.deps.log.info({ sessionId: session.id, reason: fields.unsupported }, "mcp: an elicitation Grove cannot ask was declined");
      return { reply: { action: "decline" }, said: [] };
    }
    const asked = fieldsToAsk(fields);
    const grant = { sessionId: session.id, taskId: session.taskId, scope: "task" as const };
    const content: Record<string, FieldValue> = {};
    const said: string[] = [];
    try {
      for (const field of asked) {
        let question = questionOf(ask.message, field, asked.length);
        for (let attempt = 1; ; attempt++) {
          const choices = choicesOf(field);
          const { answer } = await this.questions.ask(grant, { question, ...(choices ? { choices } : {}) }, signal);
          const parsed = parseAnswer(field, answer);
          if ("value" in parsed) {
            content[field.key] = parsed.value;
            said.push(answer);
            break;
          }
          if (attempt >= ASKS_PER_FIELD) return { reply: { action: "cancel" }, said };
          question = `${questionOf(ask.message, field, asked.length)}\n(Please answer with ${parsed.invalid}; "${answer}" does not fit.)`;
        }
      }
    } catch (e) {
      // question_timeout: nobody answered in time, or the agent withdrew the request.
      if (e instanceof AppError && e.code === "question_timeout") return { reply: { action: "cancel" }, said };
      throw e;
    }
    return { reply: { action: "accept", content }, said };
  }
}
