/**
 * One session: state and last error, cancel / resume / delete, permission questions, the live
 * messages and the prompt box; the agent's mode switch, plan and slash commands (AG-2). While a
 * turn runs the prompt box queues (WEB-37): the follow-up is shown as queued, can be removed, and
 * the server sends it when the turn ends. The prompt box stays at the bottom of the screen while
 * the person reads the conversation. Delete session asks first.
 */
import { UnconfinedBadge } from "./UnconfinedBadge.js";
import { UsageBadge } from "../usage/UsageBadge.js";
import type { Session } from "@grove/protocol";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useRef, useState, type FormEvent } from "react";
import { usePaletteCommands } from "../ui/palette-commands.js";
import { call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { listMessages } from "../api/resources.js";
import { mergeEarly } from "../live/cache.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";
import { outcomeWords, sessionShownState, sessionStateWords } from "../ui/words.js";
import { CommandHints, ModeSwitch, PlanView } from "./AgentControls.js";
import { LastError } from "./LastError.js";
import { MessageList } from "./MessageList.js";
import { Permissions } from "./Permissions.js";
import { Questions, useOpenQuestions } from "./Questions.js";
import { useConversationInView } from "./conversation-in-view.js";

const ACTIVE: readonly Session["state"][] = ["starting", "running"];
/** States without a live agent: the ones Resume leaves (SES-1). */
const STOPPED: readonly Session["state"][] = ["failed", "cancelled", "completed"];

export function SessionPanel({ session, readOnly, done = false }: { session: Session; readOnly: boolean; done?: boolean }) {
  const qc = useQueryClient();
  const id = session.id;
  const messages = useQuery({ queryKey: keys.messages(id), queryFn: () => mergeEarly(id, () => listMessages(id)) });
  const [prompt, setPrompt] = useState("");
  const [confirmDelete, setConfirmDelete] = useState(false);
  const action = useAction();
  const promptBox = useRef<HTMLTextAreaElement>(null);
  const conversation = useRef<HTMLDivElement>(null);
  useConversationInView(conversation, messages.data !== undefined);
  // WEB-36: "Write to the agent" in the palette puts the cursor in the prompt box.
  const commands = useMemo(
    () => (readOnly ? null : [{ id: "write-prompt", label: "Write to the agent", hint: `${session.agent} session`, run: () => promptBox.current?.focus() }]),
    [readOnly, session.agent],
  );
  usePaletteCommands(`session-${id}`, commands);
  const active = ACTIVE.includes(session.state);
  // A read-only session belongs to an archived task: its agent was stopped by the archive.
  const asking = useOpenQuestions(id).length > 0 && !readOnly;
  const shown = sessionShownState(session.state, { archived: readOnly, asking });
  const refresh = (s: unknown) => {
    const next = s as Session | undefined;
    if (next?.id)
      qc.setQueryData<Session[]>(keys.sessions(next.taskId), (list) => list?.map((x) => (x.id === next.id && next.updatedAt >= x.updatedAt ? next : x)));
  };
  const ACTIONS = { cancel: "cancelSessionTurn", resume: "resumeSession", restart: "restartSession" } as const;
  const post = (what: keyof typeof ACTIONS) => void action.run(() => call(ACTIONS[what], { params: { id } }).then(refresh));
  const remove = () => void action.run(() => call("deleteSession", { params: { id } }));

  const send = (e: FormEvent) => {
    e.preventDefault();
    const text = prompt;
    if (!text.trim()) return;
    void action.run(async () => {
      refresh(await call("promptSession", { params: { id }, body: active ? { prompt: text, queue: true } : { prompt: text } }));
      setPrompt("");
    });
  };
  const unqueue = (queuedId: string) => void action.run(async () => refresh(await call("dropQueuedPrompt", { params: { id, queuedId } })));

  return (
    <section className="session-panel" data-session-id={id} aria-label={`Session ${id}`}>
      <div className="session-head">
        <div className="session-title">
          <h3>{session.agent} session</h3>
          <span className={`badge session-state state-${shown}`} data-state={shown}>
            {sessionStateWords(session.state, { archived: readOnly, done, asking })}
          </span>
          {session.sandbox === "unconfined" ? <UnconfinedBadge /> : null}
          {session.usage ? (
            <>
              <UsageBadge usage={session.usage} />
              <span
                className="usage-tokens muted"
                data-tokens-in={session.usage.tokensIn}
                data-tokens-out={session.usage.tokensOut}
              >{`${session.usage.tokensIn} in · ${session.usage.tokensOut} out`}</span>
            </>
          ) : null}
          {session.blockedConnections > 0 ? (
            <span
              className="badge blocked-count"
              title="Connections the sandbox's egress proxy refused (each is a 'blocked:' note in the transcript)"
            >{`${session.blockedConnections} blocked`}</span>
          ) : null}
          {session.lastTurn && session.lastTurn.outcome !== "completed" ? (
            // LIVE-2: how the latest turn ended, unless it simply finished.
            <span className={`badge turn-outcome outcome-${session.lastTurn.outcome}`} data-outcome={session.lastTurn.outcome}>
              {outcomeWords(session.lastTurn.outcome)}
            </span>
          ) : null}
          <details className="internals">
            <summary>Details</summary>
            <code>{session.id}</code>
          </details>
        </div>
        <LastError session={session} />
      </div>
      <ErrorBox error={action.error ?? messages.error} fixes={{ cancel_turn: () => post("cancel"), resume: () => post("resume") }} />
      {/* WEB-40: the conversation, at most a screen tall, is what the page opens on; what waits for
          the person (a permission, WEB-35) sits at its end, right above the prompt box. */}
      <div className="conversation" ref={conversation}>
        {messages.isPending ? <p className="muted">Loading the conversation…</p> : <MessageList messages={messages.data ?? []} />}
        {readOnly ? null : <Questions sessionId={id} />}
        {readOnly ? null : <Permissions sessionId={id} active={active} />}
        {readOnly ? null : (
          <form className="prompt-form" aria-label="Send a prompt" onSubmit={send}>
            {session.queued && session.queued.length > 0 ? (
              <ol className="queued-prompts" aria-label="Queued follow-ups">
                {session.queued.map((q) => (
                  <li key={q.id} data-queued-id={q.id}>
                    <span className="badge queued">Queued</span>
                    <span className="queued-text">{q.text}</span>
                    <button
                      type="button"
                      className="secondary small"
                      aria-label={`Remove queued follow-up: ${q.text}`}
                      disabled={action.busy}
                      onClick={() => unqueue(q.id)}
                    >
                      Remove
                    </button>
                  </li>
                ))}
              </ol>
            ) : null}
            <Field label="Prompt" hint={active ? "The agent is working. Queue it: it is sent when this turn ends (Ctrl+Enter)." : "Ctrl+Enter sends"}>
              <textarea
                ref={promptBox}
                name="prompt"
                rows={3}
                placeholder="Ask the agent…"
                value={prompt}
                onChange={(e) => setPrompt(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
                }}
              />
            </Field>
            <CommandHints commands={session.commands} prompt={prompt} onPick={setPrompt} />
            <div className="actions">
              <button type="submit" disabled={action.busy || !prompt.trim()}>
                {active ? "Queue" : "Send"}
              </button>
            </div>
          </form>
        )}
      </div>
      {/* WEB-40.1: the session's controls come after its conversation, so the conversation fits on
          the first screen under the task's title, a phone's included. */}
      <div className="session-controls">
        {readOnly ? null : (
          <div className="actions">
            <button type="button" className="secondary" disabled={!active || action.busy} onClick={() => post("cancel")}>
              Cancel turn
            </button>
            {STOPPED.includes(session.state) ? (
              // Only a session whose agent is gone can be resumed; a live one takes prompts.
              <button type="button" className="secondary" disabled={action.busy} onClick={() => post("resume")}>
                Resume
              </button>
            ) : null}
            {/* LIVE-3: a stalled (or hung) turn: stop the agent and resume the conversation anew. */}
            <button type="button" className="secondary" disabled={session.state === "starting" || action.busy} onClick={() => post("restart")}>
              Restart agent
            </button>
            {confirmDelete ? null : (
              <button type="button" className="secondary danger-text" disabled={active || action.busy} onClick={() => setConfirmDelete(true)}>
                Delete session…
              </button>
            )}
          </div>
        )}
        {confirmDelete && !readOnly ? (
          <div className="confirm" role="alertdialog" aria-label="Confirm delete session">
            <p>Delete this session and its conversation? The task's worktree and changes stay.</p>
            <div className="actions">
              <button type="button" className="danger" autoFocus disabled={active || action.busy} onClick={remove}>
                Delete session
              </button>
              <button type="button" className="secondary" onClick={() => setConfirmDelete(false)}>
                Keep it
              </button>
            </div>
          </div>
        ) : null}
      </div>
      <ModeSwitch session={session} readOnly={readOnly} onSaved={refresh} />
      <PlanView session={session} />
    </section>
  );
}
