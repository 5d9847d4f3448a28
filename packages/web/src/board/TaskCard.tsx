/**
 * One card of the board, drawn from the task's summary alone (no read per card): title (opens
 * the task), repositories with branch, task state, agent state, ± stat when known, PR state
 * when there is one, a "runner offline" badge while the runner holding its worktrees is
 * offline, the agent's reported progress and the count of its subtasks (MCP-2/MCP-3). Moved with its "Move to…" menu (WEB-31), dragged by the mouse anywhere on the card,
 * or with the keyboard from its "Drag" handle (Space, arrows, Space).
 */
import type { TaskSummary } from "@grove/protocol";
import { useDraggable } from "@dnd-kit/core";
import { memo, type CSSProperties, type KeyboardEventHandler, type PointerEventHandler } from "react";
import { agentActivityWords, outcomeWords, planDoneWords, subtaskCountWords, taskStateWords } from "../ui/words.js";
import { Link } from "../router.js";
import { UsageBadge } from "../usage/UsageBadge.js";
import { MoveMenu } from "./MoveMenu.js";

export function CardBody({ task }: { task: TaskSummary }) {
  const agent = task.agent.state;
  // WEB-49.6: a Done task's agent that merely waits is no news: the card says the outcome (its
  // state badge, "Done"); an agent still working, asking or failed on it keeps its badge.
  const agentShown = agent !== "none" && !(task.state === "done" && agent === "waiting");
  const stat = task.diffStat;
  return (
    <>
      <Link href={`/tasks/${task.id}`} className="task-title">
        {task.title}
      </Link>
      <ul className="card-repos plain">
        {task.repositories.map((r, i) => (
          <li key={r.repositoryId + i}>
            <span className="repo-name">{r.name}</span>
            <code className="branch">{r.branch}</code>
          </li>
        ))}
      </ul>
      <div className="meta">
        <span className={`badge state-${task.state}`}>{taskStateWords(task.state)}</span>
        {agentShown ? (
          <span className={`badge agent agent-${agent}`} data-agent-state={agent} {...(task.agent.asks ? { "data-asks": task.agent.asks } : {})}>
            {agentActivityWords(agent, task.state, task.agent.asks)}
          </span>
        ) : null}
        {stat && stat.files > 0 ? (
          <span className="stat" aria-label={`${stat.files} files changed, ${stat.additions} additions, ${stat.deletions} deletions`}>
            <span className="add">+{stat.additions}</span> {stat.deletions > 0 ? <span className="del">−{stat.deletions}</span> : null}
          </span>
        ) : null}
        {task.pullRequests.map((pr) => (
          <a
            key={pr.repositoryId + pr.number}
            className={`badge pr pr-${pr.state} checks-${pr.checks}`}
            data-pr-state={pr.state}
            href={pr.url}
            target="_blank"
            rel="noreferrer"
          >
            PR #{pr.number} {pr.state}
            {pr.checks !== "none" ? ` · checks ${pr.checks}` : ""}
          </a>
        ))}
        {task.usage ? <UsageBadge usage={task.usage} /> : null}
        {task.archivedAt ? <span className="badge archived">archived</span> : null}
        {task.runnerState === "offline" ? (
          <span
            className="badge runner-offline"
            data-runner-state="offline"
            title={`its worktrees live on runner ${task.runnerId ?? "?"}, which is offline: file and agent operations are refused until it is back`}
          >
            runner {task.runnerId} offline
          </span>
        ) : null}
      </div>
      {task.progress ? (
        // MCP-2: the agent's latest report_progress: "n of m done" of its plan, then its status line.
        <p className="card-progress" data-progress>
          {task.progress.plan && task.progress.plan.length > 0 ? <span className="progress-count">{planDoneWords(task.progress.plan)} · </span> : null}
          <span className="progress-status">{task.progress.status}</span>
        </p>
      ) : null}
      {task.subtasks && task.subtasks.total > 0 ? (
        // MCP-3: the subtasks its agents made, from the summary (no read per card).
        <p className="card-subtasks" data-subtasks-total={task.subtasks.total} data-subtasks-done={task.subtasks.done}>
          {subtaskCountWords(task.subtasks)}
        </p>
      ) : null}
      {agent === "failed" && task.agent.reason ? (
        // LIVE-2: a failed or refused turn says so on the card, with the agent's reason.
        <p className="card-turn-failure error" data-outcome={task.agent.outcome ?? "failed"}>
          {`${outcomeWords(task.agent.outcome ?? "failed")}: ${task.agent.reason}`}
        </p>
      ) : null}
    </>
  );
}

export const TaskCard = memo(function TaskCard({ task, draggable }: { task: TaskSummary; draggable: boolean }) {
  const { attributes, listeners, setNodeRef, isDragging } = useDraggable({ id: task.id, data: { task }, disabled: !draggable });
  const style: CSSProperties = { opacity: isDragging ? 0.4 : 1 };
  // dnd-kit types its listeners loosely; the pointer starts a drag anywhere on the card, the
  // keyboard only from the handle (so Space on the title link still follows the link).
  const onPointerDown = listeners?.onPointerDown as PointerEventHandler<HTMLElement> | undefined;
  const onKeyDown = listeners?.onKeyDown as KeyboardEventHandler<HTMLButtonElement> | undefined;
  return (
    <article ref={setNodeRef} className="task-card" data-task-id={task.id} data-state={task.state} style={style} onPointerDown={onPointerDown}>
      <CardBody task={task} />
      {draggable ? (
        <div className="card-actions">
          <MoveMenu task={task} />
          {/* The keyboard drag (Space, ←/→, Space) says what it is: not a menu. */}
          <button
            type="button"
            className="drag-handle secondary small"
            {...attributes}
            onKeyDown={onKeyDown}
            aria-label={`Drag ${task.title} (Space, then arrow keys)`}
            title="Drag with the keyboard: Space, ←/→, Space"
          >
            Drag
          </button>
        </div>
      ) : null}
    </article>
  );
});
