/**
 * Archive, unarchive and delete of a task, and its cleanup jobs (LC-2) with their state,
 * attempts and last error, kept live by `cleanup_job.updated`. A delete that the API refuses
 * with `409 dirty_worktree` asks the person before retrying with `discardChanges=true`.
 */
import type { CleanupAccepted, CleanupJob, Task } from "@grove/protocol";
import { ApiError, api, enc } from "../api.js";
import { h, render, when } from "../dom.js";
import { act, errorSlot } from "../errors.js";
import type { Ctx } from "../router.js";
import type { Component } from "./component.js";

export function lifecyclePanel(ctx: Ctx, initial: Task): Component & { update(t: Task): void } {
  let task = initial;
  const jobs = new Map<string, CleanupJob>();
  const errors = errorSlot();
  const jobErrors = errorSlot();
  const buttons = h("div", { class: "actions" });
  const confirmBox = h("div", { class: "confirm-box" });
  const jobList = h("div");
  const el = h("section", { class: "card lifecycle", "aria-label": "Lifecycle" }, h("h2", null, "Archive and delete"), buttons, errors.el, confirmBox, h("h3", null, "Cleanup jobs"), jobErrors.el, jobList);

  const del = async (discardChanges: boolean, button: HTMLButtonElement) => {
    confirmBox.replaceChildren();
    await act(button, errors, async () => {
      try {
        await api.del<CleanupAccepted>(`/tasks/${enc(task.id)}${discardChanges ? "?discardChanges=true" : ""}`);
        await loadJobs();
      } catch (e) {
        if (!(e instanceof ApiError && e.code === "dirty_worktree" && !discardChanges)) throw e;
        // The refused attempt announced a job (prepared → cancelled) that the list no longer
        // holds; re-read the list so the page shows what the server keeps.
        await loadJobs();
        const yes = h("button", { type: "button", class: "danger", onclick: () => void del(true, yes) }, "Discard uncommitted changes and delete");
        render(
          confirmBox,
          h(
            "div",
            { class: "confirm", role: "alertdialog", "aria-label": "Confirm delete" },
            h("p", null, h("strong", null, `${e.code}: `), e.message),
            h("p", null, "Deleting now throws away the uncommitted changes in the task's worktrees."),
            h("div", { class: "actions" }, yes, h("button", { type: "button", class: "secondary", onclick: () => confirmBox.replaceChildren() }, "Keep the task")),
          ),
        );
      }
    });
  };

  const drawButtons = () => {
    const archive = h("button", { type: "button", onclick: () => void act(archive, errors, () => api.post<CleanupAccepted>(`/tasks/${enc(task.id)}/archive`).then(loadJobs)) }, "Archive");
    const unarchive = h("button", { type: "button", onclick: () => void act(unarchive, errors, () => api.post<Task>(`/tasks/${enc(task.id)}/unarchive`).then(loadJobs)) }, "Unarchive");
    const remove: HTMLButtonElement = h("button", { type: "button", class: "danger", onclick: () => void del(false, remove) }, "Delete task");
    render(buttons, task.archivedAt ? unarchive : archive, remove);
  };

  const drawJobs = () => {
    const list = [...jobs.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    render(
      jobList,
      list.length === 0
        ? h("p", { class: "empty" }, "No cleanup jobs.")
        : h(
            "table",
            { class: "jobs" },
            h("thead", null, h("tr", null, h("th", null, "Job"), h("th", null, "State"), h("th", { class: "num" }, "Attempts"), h("th", null, "Last error"), h("th", null, "Updated"))),
            h(
              "tbody",
              null,
              list.map((j) =>
                h(
                  "tr",
                  { dataset: { jobId: j.id, state: j.state } },
                  h("td", null, j.trigger),
                  h("td", null, h("span", { class: `badge job-${j.state}` }, j.state)),
                  h("td", { class: "num" }, String(j.attempts)),
                  h("td", { class: j.lastError ? "error" : "" }, j.lastError ?? "—"),
                  h("td", null, when(j.updatedAt)),
                ),
              ),
            ),
          ),
    );
  };

  async function loadJobs(): Promise<void> {
    try {
      const list = await api.get<CleanupJob[]>(`/cleanup-jobs?taskId=${enc(task.id)}`);
      jobs.clear();
      for (const j of list) jobs.set(j.id, j);
      jobErrors.clear();
      drawJobs();
    } catch (e) {
      // A server without lifecycle support answers 404 for the route: say so, calmly.
      if (e instanceof ApiError && e.status === 404) render(jobList, h("p", { class: "empty" }, "This server does not report cleanup jobs."));
      else jobErrors.show(e, "could not load cleanup jobs");
    }
  }

  const offs = [
    ctx.events.on("cleanup_job.updated", ({ job }) => {
      if (job.taskId !== task.id) return;
      jobs.set(job.id, job);
      drawJobs();
    }),
    ctx.events.on("reconnected", () => void loadJobs()),
  ];
  drawButtons();
  void loadJobs();
  return {
    el,
    update(t) {
      task = t;
      drawButtons();
    },
    dispose: () => offs.forEach((off) => off()),
  };
}
