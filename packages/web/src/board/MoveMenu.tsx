/**
 * WEB-31: a card's "Move to…" menu, beside drag (mouse) and the keyboard drag handle: a button
 * that opens a menu of the other columns (WAI-ARIA menu button: ↑/↓ pick, Enter or a click moves,
 * Escape or a click elsewhere closes and gives the focus back to the button). Written here
 * rather than taken from a component library: see ADR 2026-12-01-design-system.
 */
import type { Task, TaskSummary } from "@grove/protocol";
import { createContext, useContext, useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { taskStateWords } from "../ui/words.js";
import { TASK_STATES } from "./column-query.js";

/** The board's move (PATCH /tasks/:id, shown at once, put back on refusal), for every card. */
export const MoveContext = createContext<((task: TaskSummary, state: Task["state"]) => void) | null>(null);

/**
 * The card is drawn anew in its new column: the focus follows it there (its menu button), or,
 * when that column has not drawn it (out of view), lands on the column itself. The new card may
 * take several frames on a busy machine, so it is looked for on each frame for up to a second
 * before the column is taken instead.
 */
function followFocus(taskId: string, state: string): void {
  const until = performance.now() + 1000;
  const look = () => {
    const col = document.querySelector<HTMLElement>(`.column[data-state="${state}"]`);
    const button = col?.querySelector<HTMLElement>(`.task-card[data-task-id="${CSS.escape(taskId)}"] .move-menu > button`);
    if (button) return button.focus();
    if (performance.now() < until) return void requestAnimationFrame(look);
    col?.querySelector<HTMLElement>(".column-body")?.focus();
  };
  requestAnimationFrame(look);
}

export function MoveMenu({ task }: { task: TaskSummary }) {
  const move = useContext(MoveContext);
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  const id = useId();
  const targets = TASK_STATES.filter((s) => s !== task.state);

  const close = (focus = true) => {
    setOpen(false);
    if (focus) button.current?.focus();
  };
  useEffect(() => {
    if (!open) return;
    (menu.current?.querySelector("[role=menuitem]") as HTMLElement | null)?.focus();
    const away = (e: PointerEvent) => {
      if (!menu.current?.contains(e.target as Node) && e.target !== button.current) setOpen(false);
    };
    document.addEventListener("pointerdown", away);
    return () => document.removeEventListener("pointerdown", away);
  }, [open]);

  const onMenuKey = (e: KeyboardEvent<HTMLUListElement>) => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const go = (i: number) => items[(i + items.length) % items.length]?.focus();
    if (e.key === "ArrowDown") go(at + 1);
    else if (e.key === "ArrowUp") go(at - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(items.length - 1);
    else if (e.key === "Escape" || e.key === "Tab") close(e.key === "Escape");
    else return;
    // Keys the menu handled are not also a drag, a shortcut or a scroll.
    if (e.key !== "Tab") e.preventDefault();
    e.stopPropagation();
  };

  if (!move) return null;
  return (
    <span className="move-menu" onPointerDown={(e) => e.stopPropagation()}>
      <button
        type="button"
        ref={button}
        className="secondary small"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        aria-label={`Move to… (${task.title})`}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown" && !open) {
            e.preventDefault();
            setOpen(true);
          }
        }}
      >
        Move to…
      </button>
      {open ? (
        <ul className="menu plain" role="menu" id={id} ref={menu} aria-label={`Move ${task.title} to`} onKeyDown={onMenuKey}>
          {targets.map((s) => (
            <li key={s} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                data-state={s}
                onClick={() => {
                  close();
                  move(task, s);
                  followFocus(task.id, s);
                }}
              >
                {taskStateWords(s)}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </span>
  );
}
