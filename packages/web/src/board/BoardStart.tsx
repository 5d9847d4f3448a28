/**
 * WEB-49.4: what a first visit needs, at the top of the board. With no repository yet, a card
 * that leads to adding one (tasks need one); with repositories but no task at all, a card that
 * points at the New task button above it (one button of that name on the page, so `c`, the
 * palette and the button stay one action); when every task is archived, the same card says
 * so and links to them instead of greeting a newcomer. Neither shows once an open task exists.
 */
import { Link } from "../router.js";

export function BoardStart({ repositories, tasks, archived }: { repositories: number | undefined; tasks: number | undefined; archived: number | undefined }) {
  if (repositories === 0)
    return (
      <section className="card board-start" aria-labelledby="board-start-title">
        <h2 id="board-start-title">Add a repository</h2>
        <p>Every task works in a git repository: add a folder on this machine, or a GitHub or GitLab repository by its URL. Then give its agents tasks.</p>
        <Link href="/repositories" className="button-link board-start-action">
          Add a repository
        </Link>
      </section>
    );
  if (repositories !== undefined && tasks === 0 && archived !== undefined && archived > 0)
    return (
      <section className="card board-start" aria-labelledby="board-start-title">
        <h2 id="board-start-title">No open tasks</h2>
        <p>
          <Link href="/archived">
            {archived} archived {archived === 1 ? "task" : "tasks"}
          </Link>{" "}
          (their branches and saved work are kept). Start a new one with <strong>New task</strong> above (or press <kbd>c</kbd>).
        </p>
      </section>
    );
  if (repositories !== undefined && tasks === 0 && archived === 0)
    return (
      <section className="card board-start" aria-labelledby="board-start-title">
        <h2 id="board-start-title">No tasks yet</h2>
        <p>
          A task is a piece of work for an agent, on its own branch in its own worktree: you watch it, review its changes and decide what is merged. Start one
          with <strong>New task</strong> above (or press <kbd>c</kbd>).
        </p>
      </section>
    );
  return null;
}
