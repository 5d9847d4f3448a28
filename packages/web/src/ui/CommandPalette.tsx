/**
 * WEB-28: the command palette. Ctrl-K (⌘K on a Mac) anywhere opens it; typing narrows the
 * commands (new task, every top-level page: WEB-49.1) and searches tasks by title or description on the server
 * (`GET /tasks?view=summary&q=…`); ↑/↓ pick, Enter runs, Escape closes and gives focus back.
 * The open view adds its own commands first (WEB-36, `palette-commands.ts`).
 */
import type { Page, TaskSummary } from "@grove/protocol";
import { useEffect, useId, useRef, useState } from "react";
import { call } from "../api/client.js";
import { requestNewTask } from "../board/new-task-request.js";
import { INBOX_PATH } from "../Inbox.js";
import { navigate } from "../router.js";
import { useViewCommands, type PaletteCommand as Command } from "./palette-commands.js";
import { taskStateWords } from "./words.js";

const STATIC: Command[] = [
  { id: "new-task", label: "New task", hint: "c on the board", run: () => (navigate("/"), requestNewTask()) },
  { id: "go-board", label: "Go to the board", run: () => navigate("/") },
  { id: "go-inbox", label: "Go to the inbox", run: () => navigate(INBOX_PATH) },
  { id: "go-archived", label: "Go to archived tasks", run: () => navigate("/archived") },
  { id: "go-repositories", label: "Go to repositories", run: () => navigate("/repositories") },
  { id: "go-workflows", label: "Go to workflows", run: () => navigate("/workflows") },
  { id: "go-usage", label: "Go to usage", run: () => navigate("/usage") },
  { id: "go-trash", label: "Go to trash", run: () => navigate("/trash") },
  { id: "go-settings", label: "Go to settings", run: () => navigate("/settings") },
];

/** Tasks whose title or description holds `q`, newest first (at most 8). */
function useTaskSearch(q: string): TaskSummary[] {
  const [found, setFound] = useState<TaskSummary[]>([]);
  useEffect(() => {
    if (!q) return setFound([]);
    let live = true;
    const t = setTimeout(() => {
      const query = { view: "summary", order: "newest", limit: 8, archived: false, q } as const;
      (call("listTasks", { query }) as Promise<Page<TaskSummary>>).then(
        (page) => live && setFound(page.items),
        () => live && setFound([]),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [q]);
  return found;
}

export function CommandPalette() {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const back = useRef<HTMLElement | null>(null);
  const listId = useId();
  const q = text.trim();
  const tasks = useTaskSearch(q);
  const viewCommands = useViewCommands();

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== "k" || !(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return;
      e.preventDefault();
      back.current = document.activeElement as HTMLElement | null;
      setText("");
      setActive(0);
      setOpen(true);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  if (!open) return null;
  const words = q.toLowerCase();
  const commands: Command[] = [
    ...[...viewCommands, ...STATIC].filter((c) => !words || c.label.toLowerCase().includes(words)),
    ...tasks.map((t) => ({ id: `task-${t.id}`, label: t.title, hint: taskStateWords(t.state), run: () => navigate(`/tasks/${t.id}`) })),
  ];
  const current = Math.min(active, Math.max(commands.length - 1, 0));
  const close = (restore = true) => {
    setOpen(false);
    if (restore) back.current?.focus();
  };
  const run = (c: Command | undefined) => {
    if (!c) return;
    close(false);
    c.run();
  };

  return (
    <div className="palette-backdrop" onClick={() => close()}>
      <div className="palette" role="dialog" aria-modal="true" aria-label="Command palette" onClick={(e) => e.stopPropagation()}>
        <input
          ref={input}
          className="palette-input"
          role="combobox"
          aria-expanded="true"
          aria-controls={listId}
          aria-activedescendant={commands[current] ? `${listId}-${current}` : undefined}
          aria-label="Command or task"
          placeholder="Type a command or a task's words…"
          autoComplete="off"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setActive(0);
          }}
          onKeyDown={(e) => {
            if (e.key === "Escape") close();
            else if (e.key === "ArrowDown") setActive((current + 1) % Math.max(commands.length, 1));
            else if (e.key === "ArrowUp") setActive((current - 1 + commands.length) % Math.max(commands.length, 1));
            else if (e.key === "Enter") run(commands[current]);
            else return;
            e.preventDefault();
          }}
        />
        <ul className="palette-list" role="listbox" id={listId} aria-label="Commands and tasks">
          {commands.map((c, i) => (
            <li
              key={c.id}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === current}
              data-command={c.id}
              onMouseEnter={() => setActive(i)}
              onClick={() => run(c)}
            >
              <span>{c.label}</span>
              {c.hint ? <small className="muted">{c.hint}</small> : null}
            </li>
          ))}
          {commands.length === 0 ? <li className="empty">Nothing matches.</li> : null}
        </ul>
      </div>
    </div>
  );
}
