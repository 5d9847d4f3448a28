/**
 * MCP-3: a task's subtasks (made by its agents with `subtask_create`), each with its state and
 * a link; and on a subtask's page, the link to its parent. The list is one
 * `GET /tasks?parentId=&view=summary` read kept live by `task.summary` frames (live/cache.ts).
 */
import type { Task, TaskSummary } from "@grove/protocol";
import { useQuery } from "@tanstack/react-query";
import { call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { getTask } from "../api/resources.js";
import { Link } from "../router.js";
import { subtaskCountWords, taskStateWords } from "../ui/words.js";

export const listSubtasks = (taskId: string) => call("listTasks", { query: { view: "summary", parentId: taskId } }) as Promise<TaskSummary[]>;

export function Subtasks({ taskId }: { taskId: string }) {
  const subtasks = useQuery({ queryKey: keys.subtasks(taskId), queryFn: () => listSubtasks(taskId) });
  const list = subtasks.data ?? [];
  if (list.length === 0) return null;
  return (
    <section className="card subtasks" aria-labelledby="subtasks-heading" id="task-subtasks">
      <h2 id="subtasks-heading">Subtasks</h2>
      <p className="muted">{subtaskCountWords({ total: list.length, done: list.filter((s) => s.state === "done").length })}</p>
      <ul className="plain subtask-list">
        {list.map((s) => (
          <li key={s.id} data-task-id={s.id} data-state={s.state}>
            <Link href={`/tasks/${s.id}`}>{s.title}</Link> <span className={`badge state-${s.state}`}>{taskStateWords(s.state)}</span>
            {s.archivedAt ? <span className="badge archived">archived</span> : null}
            {s.progress ? <span className="muted"> · {s.progress.status}</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** "Subtask of <parent>": the parent's title once read, its id until then (or if it cannot be read). */
export function ParentLink({ parentId }: { parentId: string }) {
  const parent = useQuery({ queryKey: keys.task(parentId), queryFn: () => getTask(parentId) });
  const p: Task | undefined = parent.data;
  return (
    <p className="parent-link" id="task-parent">
      Subtask of <Link href={`/tasks/${parentId}`}>{p ? p.title : parentId}</Link>
    </p>
  );
}
