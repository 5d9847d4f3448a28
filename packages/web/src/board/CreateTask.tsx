/**
 * The create-task form: title, description and one or more repositories, each with an
 * optional base branch (empty = the repository's default branch). It opens at the top of the
 * board (WEB-25) with the cursor in Title; Escape or Close puts it away.
 */
import type { CreateTaskBody, Repository, Task } from "@grove/protocol";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { call } from "../api/client.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";
import { Link } from "../router.js";

interface Row {
  key: number;
  repositoryId: string;
  baseBranch: string;
}

let rowKey = 0;

export function CreateTask({ repositories, focusTick, onClose }: { repositories: Repository[] | undefined; focusTick: number; onClose: () => void }) {
  const titleInput = useRef<HTMLInputElement>(null);
  useEffect(() => titleInput.current?.focus(), [focusTick]);
  const [title, setTitle] = useState("");
  const [description, setDescription] = useState("");
  const [rows, setRows] = useState<Row[]>([]);
  const [created, setCreated] = useState<Task | null>(null);
  const action = useAction();
  const list = repositories ?? [];
  const effective = rows.length ? rows : list.length ? [{ key: -1, repositoryId: list[0]!.id, baseBranch: "" }] : [];
  const setRow = (i: number, patch: Partial<Row>) => setRows(effective.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setCreated(null);
    const body: CreateTaskBody = {
      title,
      repositories: effective.map((r) =>
        r.baseBranch.trim() ? { repositoryId: r.repositoryId, baseBranch: r.baseBranch.trim() } : { repositoryId: r.repositoryId },
      ),
    };
    if (description.trim()) body.description = description;
    void action.run(async () => {
      const task = await call("createTask", { body });
      setTitle("");
      setDescription("");
      setRows([]);
      setCreated(task);
    });
  };

  return (
    <form
      className="card create-task"
      aria-label="Create a task"
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === "Escape") onClose();
      }}
    >
      <h2>New task</h2>
      <Field label="Title">
        <input ref={titleInput} name="title" required maxLength={500} autoComplete="off" value={title} onChange={(e) => setTitle(e.target.value)} />
      </Field>
      <Field label="Description">
        <textarea name="description" rows={3} value={description} onChange={(e) => setDescription(e.target.value)} />
      </Field>
      <fieldset>
        <legend>Repositories</legend>
        {repositories && list.length === 0 ? (
          <p>
            No repositories yet. <Link href="/repositories">Add one</Link> first.
          </p>
        ) : null}
        {effective.map((r, i) => (
          <div className="repo-row" key={r.key}>
            <Field label="Repository">
              <select name="repositoryId" required value={r.repositoryId} onChange={(e) => setRow(i, { repositoryId: e.target.value })}>
                {list.map((x) => (
                  <option key={x.id} value={x.id}>
                    {x.name}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Base branch">
              <input
                name="baseBranch"
                autoComplete="off"
                placeholder={list.find((x) => x.id === r.repositoryId)?.defaultBranch ?? ""}
                value={r.baseBranch}
                onChange={(e) => setRow(i, { baseBranch: e.target.value })}
              />
            </Field>
            {effective.length > 1 ? (
              <button type="button" className="secondary" aria-label="Remove this repository" onClick={() => setRows(effective.filter((_, j) => j !== i))}>
                Remove
              </button>
            ) : null}
          </div>
        ))}
        {list.length > 0 ? (
          <button type="button" className="secondary" onClick={() => setRows([...effective, { key: ++rowKey, repositoryId: list[0]!.id, baseBranch: "" }])}>
            Add another repository
          </button>
        ) : null}
      </fieldset>
      <ErrorBox error={action.error} />
      {created ? (
        <p className="notice" role="status">
          Created <Link href={`/tasks/${created.id}`}>{created.title}</Link>.
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" disabled={action.busy || list.length === 0}>
          Create task
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}
