/**
 * The task's repositories and its environment (worktree paths and branches). The environment
 * exists after the first session; before that the API answers 404 and the panel says so.
 */
import type { Environment, Task } from "@grove/protocol";
import { ApiError, api, enc } from "../api.js";
import { debounce, h, render } from "../dom.js";
import { errorSlot } from "../errors.js";
import type { Ctx } from "../router.js";
import type { Component } from "./component.js";

export function environmentPanel(ctx: Ctx, task: Task, repoName: (id: string) => string): Component {
  const errors = errorSlot();
  const body = h("div");
  const repos = h(
    "ul",
    { class: "plain" },
    [...task.repositories]
      .sort((a, b) => a.position - b.position)
      .map((r) => h("li", null, h("strong", null, repoName(r.repositoryId)), " from ", h("code", null, r.baseBranch), r.checkoutBranch ? [" · checkout ", h("code", null, r.checkoutBranch)] : null, r.prNumber ? ` · PR #${r.prNumber}` : null)),
  );
  const el = h("section", { class: "card environment", "aria-label": "Environment" }, h("h2", null, "Repositories"), repos, h("h3", null, "Environment"), errors.el, body);

  const load = async () => {
    try {
      const env = await api.get<Environment>(`/tasks/${enc(task.id)}/environment`);
      errors.clear();
      render(
        body,
        h("p", { class: "meta" }, h("span", { class: `badge env-${env.status}` }, env.status), " · runner ", h("code", null, env.runnerId)),
        env.workspacePath ? h("p", { class: "meta" }, "workspace ", h("code", null, env.workspacePath)) : null,
        h(
          "table",
          { class: "worktrees" },
          h("thead", null, h("tr", null, h("th", null, "Repository"), h("th", null, "Worktree"), h("th", null, "Branch"), h("th", null, "Status"))),
          h(
            "tbody",
            null,
            env.repositories.map((r) =>
              h(
                "tr",
                { dataset: { repositoryId: r.repositoryId } },
                h("td", null, repoName(r.repositoryId)),
                h("td", null, h("code", null, r.worktreePath ?? "—")),
                h("td", null, h("code", null, r.worktreeBranch ?? "—"), " ← ", h("code", null, r.baseBranch)),
                h("td", null, r.status, r.errorMessage ? h("span", { class: "error" }, ` ${r.errorMessage}`) : null),
              ),
            ),
          ),
        ),
      );
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        errors.clear();
        render(body, h("p", { class: "empty" }, "Not created yet: the first session creates the worktrees."));
      } else errors.show(e, "could not load the environment");
    }
  };
  const refresh = debounce(() => void load(), 200);
  const offs = [
    ctx.events.on("environment.updated", (d) => d.taskId === task.id && refresh()),
    ctx.events.on("session.state_changed", (d) => d.session.taskId === task.id && refresh()),
    ctx.events.on("cleanup_job.updated", (d) => d.job.taskId === task.id && refresh()),
    ctx.events.on("reconnected", refresh),
  ];
  void load();
  return {
    el,
    dispose() {
      refresh.cancel();
      offs.forEach((off) => off());
    },
  };
}
