/**
 * The sessions of a task: a list (state, agent, last error) to pick one from, the picked
 * session's panel, and the form that starts a new session (agent from GET /agents, the first
 * prompt pre-filled with the task's brief, BRIEF-1, editable; cleared, the session starts idle).
 * Kept live by the event feed.
 */
import { UnconfinedBadge } from "./UnconfinedBadge.js";
import { taskBrief, type Session, type Task } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { listAgents, listSessions } from "../api/resources.js";
import { upsert } from "../live/cache.js";
import { attention } from "../live/attention.js";
import { useStore } from "../live/store.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field, when } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";
import { usePaletteCommands } from "../ui/palette-commands.js";
import { sessionShownState, sessionStateWords } from "../ui/words.js";
import { SessionPanel } from "./SessionPanel.js";
import { lastErrorLabel } from "./LastError.js";

export function Sessions({
  taskId,
  task,
  readOnly,
  fixes,
}: {
  taskId: string;
  task?: Pick<Task, "title" | "description" | "state">;
  readOnly: boolean;
  fixes?: { restore?: () => void; unarchive?: () => void };
}) {
  const qc = useQueryClient();
  const sessions = useQuery({ queryKey: keys.sessions(taskId), queryFn: () => listSessions(taskId) });
  const agents = useQuery({ queryKey: keys.agents, queryFn: listAgents, enabled: !readOnly });
  const [picked, setPicked] = useState<string | null>(null);
  // WEB-41: sessions whose agent waits on the person's answer to its question.
  const inbox = useStore(attention);
  const asking = useMemo(() => new Set(readOnly ? [] : inbox.filter((i) => i.kind === "question" && i.sessionId).map((i) => i.sessionId)), [inbox, readOnly]);
  const [agent, setAgent] = useState("");
  const brief = task ? (taskBrief(task) ?? "") : "";
  const [prompt, setPrompt] = useState(brief);
  const [edited, setEdited] = useState(false);
  // An edited title or description re-fills the form unless the person has typed in it.
  useEffect(() => {
    if (!edited) setPrompt(brief);
  }, [brief, edited]);
  const action = useAction();
  const agentSelect = useRef<HTMLSelectElement>(null);
  // WEB-36: "Start a session" in the command palette puts the cursor in this form.
  const commands = useMemo(
    () => (readOnly ? null : [{ id: "start-session", label: "Start a session", hint: "this task", run: () => agentSelect.current?.focus() }]),
    [readOnly],
  );
  usePaletteCommands("sessions", commands);
  const ordered = [...(sessions.data ?? [])].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const selected = ordered.find((s) => s.id === picked) ?? ordered[ordered.length - 1];

  const start = (e: FormEvent) => {
    e.preventDefault();
    const body: { agent?: string; prompt?: string } = {};
    const name = agent || agents.data?.[0]?.name;
    if (name) body.agent = name;
    // Always sent, so a prompt the person cleared starts the session idle instead of with the brief.
    body.prompt = prompt.trim() ? prompt : "";
    void action.run(async () => {
      const s = await call("startSession", { params: { id: taskId }, body });
      setPrompt("");
      setEdited(true);
      qc.setQueryData<Session[]>(keys.sessions(taskId), (list) => (list?.some((x) => x.id === s.id) ? list : upsert(list, s)));
      setPicked(s.id);
    });
  };

  return (
    <section className="card sessions" aria-label="Sessions">
      <h2>Sessions</h2>
      <ErrorBox error={sessions.error} context="Could not load sessions" />
      <ul className="session-list" aria-label="Session list">
        {/* "No sessions yet" only once the list has answered: before that it may not be true. */}
        {sessions.isPending ? <li className="muted">Loading sessions…</li> : null}
        {sessions.data !== undefined && ordered.length === 0 ? <li className="empty">No sessions yet.</li> : null}
        {ordered.map((s, i) => {
          const opts = { archived: readOnly, done: task?.state === "done", asking: asking.has(s.id) };
          return (
            <li key={s.id} data-session-id={s.id} data-state={sessionShownState(s.state, opts)}>
              <button type="button" className="session-item" aria-pressed={s.id === selected?.id} onClick={() => setPicked(s.id)}>
                <span>{`#${i + 1} ${s.agent}`}</span>
                <span className={`badge state-${sessionShownState(s.state, opts)}`}>{sessionStateWords(s.state, opts)}</span>
                {s.sandbox === "unconfined" ? <UnconfinedBadge /> : null}
                <small className="muted">{when(s.createdAt)}</small>
                {lastErrorLabel(s.lastError) ? <small className="error">{lastErrorLabel(s.lastError)}</small> : null}
              </button>
            </li>
          );
        })}
      </ul>
      {selected ? <SessionPanel key={selected.id} session={selected} readOnly={readOnly} done={task?.state === "done"} /> : null}
      {readOnly ? null : (
        <form className="start-session" aria-label="Start a session" onSubmit={start}>
          <h3>New session</h3>
          <Field label="Agent">
            <select ref={agentSelect} name="agent" value={agent || agents.data?.[0]?.name || ""} onChange={(e) => setAgent(e.target.value)}>
              {agents.isPending ? (
                <option value="" disabled>
                  Loading agents…
                </option>
              ) : null}
              {(agents.data ?? []).map((p) => (
                <option key={p.name} value={p.name}>
                  {p.builtIn ? p.name : `${p.name} (configured)`}
                  {p.available === false ? " (not installed)" : ""}
                </option>
              ))}
            </select>
          </Field>
          <Field label={brief ? "First prompt (the task's brief; edit or clear it)" : "First prompt (optional)"}>
            <textarea
              name="firstPrompt"
              rows={brief ? 6 : 3}
              placeholder="say hello"
              value={prompt}
              onChange={(e) => {
                setEdited(true);
                setPrompt(e.target.value);
              }}
            />
          </Field>
          <ErrorBox error={action.error ?? agents.error} fixes={{ restore: fixes?.restore, unarchive: fixes?.unarchive, retry: () => action.clear() }} />
          <div className="actions">
            <button type="submit" disabled={action.busy}>
              Start session
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
