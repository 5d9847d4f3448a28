/**
 * MCP-3.7: the question an Archive of a task with open subtasks asks — archive them too, archive
 * only this task, or nothing. Shown when the server refused the plain archive with
 * `409 task_has_children` (it alone knows the whole subtree), so nothing has changed yet.
 * Keyboard: focus starts on the first choice, Escape cancels.
 */
import { useEffect, useId, useRef, type KeyboardEvent } from "react";

export type ChildrenChoice = "archive" | "keep";

export function ArchiveSubtasksDialog({
  title,
  open,
  onChoose,
  onCancel,
}: {
  title: string;
  open: number;
  onChoose(children: ChildrenChoice): void;
  onCancel(): void;
}) {
  const headingId = useId();
  const textId = useId();
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus(), []);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== "Escape") return;
    e.preventDefault();
    onCancel();
  };
  const subtasks = open === 1 ? "1 open subtask" : `${open} open subtasks`;
  return (
    <div className="confirm" role="alertdialog" aria-labelledby={headingId} aria-describedby={textId} data-step="subtasks" onKeyDown={onKeyDown}>
      <p id={headingId}>
        <strong>
          “{title}” has {subtasks}
        </strong>
      </p>
      <p id={textId} className="muted">
        Archive them with it (their agents stop, their worktrees are removed, uncommitted work is saved), or archive only this task and leave them open.
      </p>
      <div className="actions">
        <button ref={first} type="button" className="secondary" onClick={() => onChoose("archive")}>
          Archive subtasks too
        </button>
        <button type="button" className="secondary" onClick={() => onChoose("keep")}>
          Archive only this task
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
