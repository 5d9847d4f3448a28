/**
 * The create-task form: title, description and one or more repositories, each with an
 * optional base branch (empty = the repository's default branch).
 */
import type { CreateTaskBody, Repository, Task } from "@grove/protocol";
import { api } from "../api.js";
import { field, h, render } from "../dom.js";
import { act, errorSlot } from "../errors.js";

export function createTaskForm(): HTMLElement {
  let repositories: Repository[] = [];
  const errors = errorSlot();
  const done = h("p", { class: "notice", role: "status" });
  const title = h("input", { name: "title", required: true, maxlength: "500", autocomplete: "off" });
  const description = h("textarea", { name: "description", rows: 3 });
  const rows = h("div", { class: "repo-rows" });
  const submit = h("button", { type: "submit" }, "Create task");

  const addRow = () => {
    const select = h("select", { name: "repositoryId", required: true }, repositories.map((r) => h("option", { value: r.id }, r.name)));
    const base = h("input", { name: "baseBranch", autocomplete: "off" });
    const setPlaceholder = () => (base.placeholder = repositories.find((r) => r.id === select.value)?.defaultBranch ?? "");
    select.addEventListener("change", setPlaceholder);
    setPlaceholder();
    const row: HTMLElement = h(
      "div",
      { class: "repo-row" },
      field("Repository", select),
      field("Base branch", base),
      h("button", { type: "button", class: "secondary", onclick: () => rows.children.length > 1 && row.remove(), "aria-label": "Remove this repository" }, "Remove"),
    );
    rows.append(row);
  };

  const form = h(
    "form",
    { class: "card create-task", "aria-label": "Create a task" },
    h("h2", null, "New task"),
    field("Title", title),
    field("Description", description),
    h("fieldset", null, h("legend", null, "Repositories"), rows, h("button", { type: "button", class: "secondary", onclick: addRow }, "Add another repository")),
    errors.el,
    done,
    submit,
  );

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    done.textContent = "";
    const body: CreateTaskBody = {
      title: title.value,
      repositories: [...rows.querySelectorAll(".repo-row")].map((row) => {
        const repositoryId = row.querySelector<HTMLSelectElement>("select")!.value;
        const baseBranch = row.querySelector<HTMLInputElement>("input[name=baseBranch]")!.value.trim();
        return baseBranch ? { repositoryId, baseBranch } : { repositoryId };
      }),
    };
    if (description.value.trim()) body.description = description.value;
    void act(submit, errors, async () => {
      const task = await api.post<Task>("/tasks", body);
      form.reset();
      render(done, "Created ", h("a", { href: `/tasks/${task.id}` }, task.title), ".");
    });
  });

  void api
    .get<Repository[]>("/repositories")
    .then((list) => {
      repositories = list;
      if (list.length === 0) {
        render(rows, h("p", null, "No repositories yet. ", h("a", { href: "/repositories" }, "Add one"), " first."));
        submit.disabled = true;
        return;
      }
      addRow();
    })
    .catch((e: unknown) => errors.show(e, "could not load repositories"));
  return form;
}
