/**
 * A shell in the task's worktree (one per repository), in the page with xterm.js, over its own
 * WebSocket `/api/v1/tasks/:id/terminal?repositoryId=` (the API's Host/Origin/cookie rules
 * apply). The shell lives on the server while it runs: a reload reattaches and replays its
 * recent output. Resizing the panel resizes the pty.
 *
 * WEB-21: when the socket closes (the server stopped, the shell exited), the panel says so and
 * offers Reconnect; when the page's event stream comes back after a server restart, it
 * reconnects by itself. A reconnect is a new socket, hence a new shell if the old one is gone.
 */
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { useEffect, useRef, useState } from "react";
import { events } from "../live/events.js";
import { Field } from "../ui/Field.js";

export default function TerminalPanel({ taskId, repositories }: { taskId: string; repositories: { id: string; name: string }[] }) {
  const [repo, setRepo] = useState(repositories[0]?.id ?? "");
  const [state, setState] = useState("connecting…");
  const [closed, setClosed] = useState(false);
  // Bumped to open a new socket (Reconnect, or the server is back).
  const [attempt, setAttempt] = useState(0);
  const box = useRef<HTMLDivElement | null>(null);

  useEffect(() => (closed ? events.on("reconnected", () => setAttempt((a) => a + 1)) : undefined), [closed]);

  useEffect(() => {
    if (!box.current || !repo) return;
    const term = new Terminal({ convertEol: false, fontSize: 13, cursorBlink: true, scrollback: 5000, screenReaderMode: false });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(box.current);
    fit.fit();
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/v1/tasks/${encodeURIComponent(taskId)}/terminal?repositoryId=${encodeURIComponent(repo)}&cols=${term.cols}&rows=${term.rows}`;
    const ws = new WebSocket(url);
    const send = (msg: unknown) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(msg));
    setClosed(false);
    setState("connecting…");
    ws.onopen = () => setState("connected");
    ws.onmessage = (m) => term.write(typeof m.data === "string" ? m.data : "");
    ws.onclose = (e) => {
      setClosed(true);
      setState(e.reason ? `closed: ${e.reason}` : "closed");
    };
    const input = term.onData((data) => send({ type: "input", data }));
    const resize = term.onResize(({ cols, rows }) => send({ type: "resize", cols, rows }));
    const ro = new ResizeObserver(() => {
      try {
        fit.fit();
      } catch {
        // the panel is hidden: nothing to fit
      }
    });
    ro.observe(box.current);
    return () => {
      ro.disconnect();
      input.dispose();
      resize.dispose();
      ws.onclose = null;
      ws.close();
      term.dispose();
    };
  }, [taskId, repo, attempt]);

  return (
    <section className="card terminal" aria-label="Terminal">
      <div className="card-head">
        <h2>Terminal</h2>
        {repositories.length > 1 ? (
          <Field label="Terminal repository">
            <select value={repo} onChange={(e) => setRepo(e.target.value)}>
              {repositories.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </select>
          </Field>
        ) : (
          <span className="muted">{repositories[0]?.name}</span>
        )}
        <span className="muted terminal-state" role="status" data-state={closed ? "closed" : state === "connected" ? "connected" : "connecting"}>
          {state}
        </span>
        {closed ? (
          <button type="button" className="secondary small" onClick={() => setAttempt((a) => a + 1)}>
            Reconnect
          </button>
        ) : null}
      </div>
      <div className="terminal-box" ref={box} data-repository-id={repo} />
    </section>
  );
}
