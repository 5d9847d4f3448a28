/**
 * The Changes panel (UX-2): per repository the branch, its base, ahead/behind and the changed
 * files with +/- counts; a file opens its diff. Refreshed (debounced) on `changes.updated`,
 * when a session of the task changes state and on cleanup jobs; an open diff is re-read.
 */
import type { Changes, FileDiff, RepositoryChanges } from "@grove/protocol";
import { api, enc } from "../api.js";
import { debounce, h, render } from "../dom.js";
import { errorSlot } from "../errors.js";
import type { Ctx } from "../router.js";
import type { Component } from "./component.js";
import { renderDiff } from "./diff.js";

export function changesPanel(ctx: Ctx, taskId: string, repoName: (id: string) => string): Component {
  const errors = errorSlot();
  const body = h("div", { class: "changes-body" });
  const diffBox = h("div", { class: "diff-box", "aria-live": "polite" });
  const refreshButton = h("button", { type: "button", class: "secondary small", onclick: () => void load() }, "Refresh");
  const el = h("section", { class: "card changes", "aria-label": "Changes" }, h("div", { class: "card-head" }, h("h2", null, "Changes"), refreshButton), errors.el, body, diffBox);
  let open: { repositoryId: string; path: string } | undefined;

  const openDiff = async (repositoryId: string, path: string) => {
    open = { repositoryId, path };
    for (const b of body.querySelectorAll<HTMLButtonElement>("button.file")) b.setAttribute("aria-pressed", String(b.dataset.repositoryId === repositoryId && b.dataset.path === path));
    try {
      const d = await api.get<FileDiff>(`/tasks/${enc(taskId)}/changes/diff?repositoryId=${enc(repositoryId)}&path=${enc(path)}`);
      if (open?.repositoryId !== repositoryId || open.path !== path) return;
      render(diffBox, h("h3", { class: "diff-title" }, `${repoName(repositoryId)} / ${path}`), renderDiff(d));
    } catch (e) {
      const slot = errorSlot();
      slot.show(e, `diff of ${path}`);
      render(diffBox, slot.el);
    }
  };

  const repoSection = (r: RepositoryChanges) =>
    h(
      "div",
      { class: "repo-changes", dataset: { repositoryId: r.repositoryId } },
      h("h3", null, repoName(r.repositoryId)),
      h(
        "p",
        { class: "meta" },
        h("code", null, r.branch),
        " ← ",
        h("code", null, r.baseBranch),
        ` · ${r.ahead} ahead, ${r.behind} behind`,
        r.mergeBase ? ` · merge base ${r.mergeBase.slice(0, 8)}` : "",
      ),
      r.error ? h("p", { class: "error", role: "alert" }, r.error) : null,
      r.files.length === 0
        ? h("p", { class: "empty" }, "No changed files.")
        : h(
            "table",
            { class: "files" },
            h("thead", null, h("tr", null, h("th", null, "Status"), h("th", null, "File"), h("th", { class: "num" }, "+"), h("th", { class: "num" }, "−"))),
            h(
              "tbody",
              null,
              r.files.map((f) =>
                h(
                  "tr",
                  { dataset: { path: f.path } },
                  h("td", null, h("span", { class: `badge file-${f.status}` }, f.status)),
                  h(
                    "td",
                    null,
                    h("button", { type: "button", class: "file link", dataset: { repositoryId: r.repositoryId, path: f.path }, "aria-pressed": String(open?.repositoryId === r.repositoryId && open.path === f.path), onclick: () => void openDiff(r.repositoryId, f.path) }, f.oldPath ? `${f.oldPath} → ${f.path}` : f.path),
                  ),
                  h("td", { class: "num add" }, f.binary ? "bin" : `+${f.additions}`),
                  h("td", { class: "num del" }, f.binary ? "" : `−${f.deletions}`),
                ),
              ),
            ),
          ),
      r.truncated ? h("p", { class: "diff-note" }, "The file list was truncated.") : null,
    );

  const load = async () => {
    try {
      const c = await api.get<Changes>(`/tasks/${enc(taskId)}/changes`);
      errors.clear();
      render(body, c.repositories.length === 0 ? h("p", { class: "empty" }, "No worktrees yet: the first session creates them.") : c.repositories.map(repoSection));
      if (open) await openDiff(open.repositoryId, open.path);
    } catch (e) {
      errors.show(e, "could not load changes");
    }
  };

  const refresh = debounce(() => void load(), 300);
  const offs = [
    ctx.events.on("changes.updated", (d) => d.taskId === taskId && refresh()),
    ctx.events.on("session.state_changed", (d) => d.session.taskId === taskId && refresh()),
    ctx.events.on("environment.updated", (d) => d.taskId === taskId && refresh()),
    // Archive and reset remove worktrees: the listed files may be gone.
    ctx.events.on("cleanup_job.updated", (d) => d.job.taskId === taskId && refresh()),
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
