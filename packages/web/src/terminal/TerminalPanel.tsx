/**
 * A shell in the task's worktree (one per repository), in the page with xterm.js, over its own
 * WebSocket `/api/v1/tasks/:id/terminal?repositoryId=` (the API's Host/Origin/cookie rules
 * apply). The shell lives on the server while it runs: a reload reattaches and replays its
 * recent output. Resizing the panel resizes the pty.
 */
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { useEffect, useRef, useState } from "react";
import { Field } from "../ui/Field.js";

export default function TerminalPanel({ taskId, repositories }: { taskId: string; repositories: { id: string; name: string }[] }) {
  const [repo, setRepo] = useState(repositories[0]?.id ?? "");
  const [state, setState] = useState("connecting…");
  const box = useRef<HTMLDivElement | null>(null);

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
    ws.onopen = () => setState("connected");
    ws.onmessage = (m) => term.write(typeof m.data === "string" ? m.data : "");
    ws.onclose = (e) => setState(e.reason ? `closed: ${e.reason}` : "closed");
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
      ws.close();
      term.dispose();
    };
  }, [taskId, repo]);

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
        <span className="muted terminal-state" role="status">
          {state}
        </span>
      </div>
      <div className="terminal-box" ref={box} data-repository-id={repo} />
    </section>
  );
}
