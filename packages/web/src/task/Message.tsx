/**
 * One message of a session by role: the person's prompt, the agent's answer (sanitized
 * Markdown), thoughts (muted), tool calls (collapsible, with their diffs and output), plans
 * and system notes.
 */
import type { Message } from "@grove/protocol";
import { memo, useMemo, type CSSProperties } from "react";
import { markdownHtml } from "../ui/markdown.js";
import { toolStatusWords } from "../ui/words.js";

/** One formatter for every row (building one per row costs more than the row). */
const CLOCK = new Intl.DateTimeFormat(undefined, { timeStyle: "medium" });
const clock = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : CLOCK.format(d);
};

const ROLE_LABEL: Record<Message["role"], string> = { user: "You", agent: "Agent", thought: "Thinking", tool: "Tool", plan: "Plan", system: "System" };

interface ToolData {
  status?: string;
  kind?: string | null;
  content?: { type: string; path?: string; oldText?: string | null; newText?: string; content?: { type: string; text?: string } }[];
  rawOutput?: unknown;
}

function MiniDiff({ path, oldText, newText }: { path?: string; oldText?: string | null; newText?: string }) {
  const before = (oldText ?? "").split("\n");
  const after = (newText ?? "").split("\n");
  // A tool's diff is whole-file old/new text; show removed then added lines, trimmed of the
  // common head and tail so a one-line edit of a long file stays one line.
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const del = oldText === null || oldText === undefined ? [] : before.slice(head, before.length - tail);
  const add = newText === undefined ? [] : after.slice(head, after.length - tail);
  return (
    <figure className="tool-diff">
      <figcaption>
        <code>{path}</code>
      </figcaption>
      <pre className="diff">
        <code>
          {del.map((l, i) => (
            <span key={`d${i}`} className="line del">{`-${l}`}</span>
          ))}
          {add.map((l, i) => (
            <span key={`a${i}`} className="line add">{`+${l}`}</span>
          ))}
        </code>
      </pre>
    </figure>
  );
}

function ToolBody({ data }: { data: ToolData }) {
  return (
    <div className="tool-body">
      {(data.content ?? []).map((c, i) =>
        c.type === "diff" ? (
          <MiniDiff key={i} path={c.path} oldText={c.oldText} newText={c.newText} />
        ) : c.type === "content" && c.content?.type === "text" ? (
          <pre key={i} className="tool-output">
            {c.content.text}
          </pre>
        ) : null,
      )}
      {data.rawOutput !== undefined ? (
        <pre className="tool-output raw">{typeof data.rawOutput === "string" ? data.rawOutput : JSON.stringify(data.rawOutput, null, 2)}</pre>
      ) : null}
    </div>
  );
}

/** Where a virtual list puts the row (primitives, so memo keeps unchanged rows as they are). */
export interface RowPlace {
  index: number;
  start: number;
  measure: (el: HTMLLIElement | null) => void;
}

export const MessageItem = memo(function MessageItem({ m, index, start, measure }: { m: Message } & Partial<RowPlace>) {
  const place = measure && index !== undefined && start !== undefined ? { index, start, measure } : undefined;
  const data = (m.data ?? {}) as ToolData;
  const status = m.role === "tool" && typeof data.status === "string" ? data.status : undefined;
  const html = useMemo(() => (m.role === "agent" ? markdownHtml(m.text) : ""), [m.role, m.text]);
  const style: CSSProperties | undefined = place ? { position: "absolute", top: 0, left: 0, right: 0, transform: `translateY(${place.start}px)` } : undefined;
  const hasBody = m.role === "tool" && ((data.content?.length ?? 0) > 0 || data.rawOutput !== undefined);
  const head = (
    <span className="msg-head">
      <span className="msg-role">{ROLE_LABEL[m.role] ?? m.role}</span>
      {status ? <span className={`badge tool-${status}`}>{toolStatusWords(status)}</span> : null}
      {m.role === "tool" ? <span className="msg-text tool-title">{m.text}</span> : null}
      <time dateTime={m.createdAt}>{clock(m.createdAt)}</time>
    </span>
  );
  return (
    <li
      className={`msg role-${m.role}`}
      data-message-id={m.id}
      data-role={m.role}
      data-status={status}
      data-index={place?.index}
      ref={place?.measure}
      style={style}
    >
      {m.role === "tool" ? (
        hasBody ? (
          <details>
            <summary>{head}</summary>
            <ToolBody data={data} />
          </details>
        ) : (
          head
        )
      ) : (
        <>
          {head}
          {m.role === "agent" ? <div className="msg-text markdown" dangerouslySetInnerHTML={{ __html: html }} /> : <div className="msg-text">{m.text}</div>}
        </>
      )}
    </li>
  );
});
