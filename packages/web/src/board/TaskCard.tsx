/**
 * One card of the board: title (opens the task), repositories with branch, task state, agent
 * state, ± stat when known, PR state when there is one. Dragged by the mouse anywhere on the
 * card, or with the keyboard from its "Move" handle (Space, arrows, Space).
 */
import type { Task } from "@grove/protocol";
import { useDraggable } from "@dnd-kit/core";
import type { CSSProperties, KeyboardEventHandler, PointerEventHandler } from "react";
import { label } from "../ui/Field.js";
import { Link } from "../router.js";
import { AGENT_STATE_LABEL, agentState } from "./filter.js";
import { useActivity } from "./use-activity.js";

export function CardBody({ task, repoName }: { task: Task; repoName: (id: string) => string }) {
  const act = useActivity(task.id, task.archivedAt !== null);
  const agent = agentState(act.sessions, act.asks);
  const files = act.changes?.repositories.flatMap((r) => r.files) ?? [];
  const adds = files.reduce((n, f) => n + f.additions, 0);
  const dels = files.reduce((n, f) => n + f.deletions, 0);
  const branchOf = (repositoryId: string) => act.changes?.repositories.find((r) => r.repositoryId === repositoryId)?.branch;
  return (
    <>
      <Link href={`/tasks/${task.id}`} className="task-title">
        {task.title}
      </Link>
      <ul className="card-repos plain">
        {[...task.repositories]
          .sort((a, b) => a.position - b.position)
          .map((r) => (
            <li key={r.repositoryId + r.position}>
              <span className="repo-name">{repoName(r.repositoryId)}</span>
              <code className="branch">{branchOf(r.repositoryId) ?? r.checkoutBranch ?? `from ${r.baseBranch}`}</code>
            </li>
          ))}
      </ul>
      <div className="meta">
        <span className={`badge state-${task.state}`}>{label(task.state)}</span>
        {agent && agent !== "none" ? (
          <span className={`badge agent agent-${agent}`} data-agent-state={agent}>
            {AGENT_STATE_LABEL[agent]}
          </span>
        ) : null}
        {act.changes && files.length > 0 ? (
          <span className="stat" aria-label={`${files.length} files changed, ${adds} additions, ${dels} deletions`}>
            <span className="add">+{adds}</span> {dels > 0 ? <span className="del">−{dels}</span> : null}
          </span>
        ) : null}
        {act.pullRequests?.map((pr) => (
          <a key={pr.repositoryId + pr.number} className={`badge pr pr-${pr.state} checks-${pr.checks}`} href={pr.url} target="_blank" rel="noreferrer">
            PR #{pr.number} {pr.state}
            {pr.checks !== "none" ? ` · checks ${pr.checks}` : ""}
          </a>
        ))}
        {task.archivedAt ? <span className="badge archived">archived</span> : null}
      </div>
    </>
  );
}

export function TaskCard({ task, repoName, draggable }: { task: Task; repoName: (id: string) => string; draggable: boolean }) {
  const { attributes, listeners, setNodeRef, isDragging } = useDraggable({ id: task.id, data: { task }, disabled: !draggable });
  const style: CSSProperties = { opacity: isDragging ? 0.4 : 1 };
  // dnd-kit types its listeners loosely; the pointer starts a drag anywhere on the card, the
  // keyboard only from the handle (so Space on the title link still follows the link).
  const onPointerDown = listeners?.onPointerDown as PointerEventHandler<HTMLElement> | undefined;
  const onKeyDown = listeners?.onKeyDown as KeyboardEventHandler<HTMLButtonElement> | undefined;
  return (
    <article ref={setNodeRef} className="task-card" data-task-id={task.id} data-state={task.state} style={style} onPointerDown={onPointerDown}>
      <CardBody task={task} repoName={repoName} />
      {draggable ? (
        <button type="button" className="drag-handle secondary small" {...attributes} onKeyDown={onKeyDown} aria-label={`Move ${task.title}`}>
          Move
        </button>
      ) : null}
    </article>
  );
}
