/**
 * WEB-41 (MCP-3): the agent's open questions of one session, answered on its task page (the
 * inbox's own route), right above the prompt box; what the person answered here stays in sight
 * afterwards ("You answered: …"). The open questions come from the inbox's mirror
 * (live/attention.ts), so the inbox, this page and every other tab agree.
 */
import { useState } from "react";
import { attention, type AttentionItem } from "../live/attention.js";
import { useStore } from "../live/store.js";
import { QuestionAnswer } from "../ui/QuestionAnswer.js";

/** The session's open questions, oldest first. */
export function useOpenQuestions(sessionId: string): AttentionItem[] {
  const items = useStore(attention);
  return items.filter((i) => i.kind === "question" && i.sessionId === sessionId).sort((a, b) => a.at.localeCompare(b.at));
}

export function Questions({ sessionId }: { sessionId: string }) {
  const open = useOpenQuestions(sessionId);
  const [answered, setAnswered] = useState<{ id: string; question: string; answer: string }[]>([]);
  if (open.length === 0 && answered.length === 0) return null;
  return (
    <div className="questions" aria-live="polite">
      {answered.length > 0 ? (
        <ul className="answered-questions plain" aria-label="Your answers">
          {answered.map((a) => (
            <li key={a.id}>
              <span className="muted">{a.question}</span> <strong>{`You answered: ${a.answer}`}</strong>
            </li>
          ))}
        </ul>
      ) : null}
      {open.map((q) => {
        const words = q.question ?? q.text;
        return (
          <div key={q.id} className="question" data-inbox-id={q.id}>
            <p>
              <strong>The agent asks: </strong>
              <span className="question-text">{words}</span>
            </p>
            <QuestionAnswer
              item={q}
              label={`Question from the agent: ${words}`}
              onAnswered={(answer) => setAnswered((cur) => [...cur, { id: q.id, question: words, answer }])}
            />
          </div>
        );
      })}
    </div>
  );
}
