/** The board's search box and filters (repository, state, agent); they combine. */
import type { Repository } from "@grove/protocol";
import { Field } from "../ui/Field.js";
import { AGENT_ACTIVITY_WORDS, taskStateWords } from "../ui/words.js";
import { AGENT_STATES, type TaskFilter } from "./filter.js";

type F = Omit<TaskFilter, "archived">;
const STATES = ["todo", "in_progress", "review", "done", "failed"];

/**
 * `shown` is the exact count of the shown columns (WEB-30, `GET /tasks/counts`); under the agent
 * filter, which the page applies, it counts the cards that passed so far and `more` says some
 * column has further pages, so the count reads "50+".
 */
export function Filters({
  value,
  onChange,
  onClear,
  repositories,
  shown,
  more,
}: {
  value: F;
  onChange(f: F): void;
  onClear(): void;
  repositories: Repository[];
  shown: number;
  more: boolean;
}) {
  const set = (patch: Partial<F>) => onChange({ ...value, ...patch });
  const active = value.q || value.repositoryId || value.state || value.agent;
  return (
    <div role="search" className="filters" aria-label="Search and filter tasks">
      <Field label="Search">
        <input type="search" value={value.q} placeholder="title or description…" onChange={(e) => set({ q: e.target.value })} />
      </Field>
      <Field label="Repository filter">
        <select value={value.repositoryId} onChange={(e) => set({ repositoryId: e.target.value })}>
          <option value="">all repositories</option>
          {repositories.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="State filter">
        <select value={value.state} onChange={(e) => set({ state: e.target.value })}>
          <option value="">all states</option>
          {STATES.map((s) => (
            <option key={s} value={s}>
              {taskStateWords(s)}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Agent filter">
        <select value={value.agent} onChange={(e) => set({ agent: e.target.value })}>
          <option value="">any agent state</option>
          {AGENT_STATES.map((s) => (
            <option key={s} value={`state:${s}`}>
              {AGENT_ACTIVITY_WORDS[s]}
            </option>
          ))}
        </select>
      </Field>
      <p className="muted filter-count" aria-live="polite">
        {`${shown}${more ? "+" : ""} ${shown === 1 && !more ? "task" : "tasks"}${active ? " match" : ""}`}
      </p>
      {active ? (
        <button type="button" className="secondary small" onClick={onClear}>
          Clear filters
        </button>
      ) : null}
    </div>
  );
}
