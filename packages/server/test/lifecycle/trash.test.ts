import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runGrove } from "../cli/run-cli.js";
import { DATABASES } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { repoAndTask } from "../fixture/scenario.js";
import { serverPerTest, waitFor, waitForSession } from "../fixture/server.js";
import { jobsOf, waitForJob } from "./helpers.js";

const WEEK = 7 * 24 * 60 * 60 * 1000;

describe.each(DATABASES)("LIVE-5 deletes are undoable: trash, restore, purge (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("LIVE-5: delete → trash → restore brings back the task with its transcripts, branch and saved work", async () => {
    const srv = await perTest.start();
    const { task, repo } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, {
      prompt: "write done.txt committed work\ncommit add done.txt\nwrite wip.txt uncommitted work\nsay finished",
    });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    const slot = ws.repositories[0];
    const transcript = (await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { id: string }[];
    expect(transcript.length).toBeGreaterThan(0);

    const del = await srv.api("DELETE", `/tasks/${task.id}?discardChanges=true`);
    expect(del.status).toBe(202);
    expect((await waitForJob(srv.api, task.id, del.body.jobId, ["succeeded", "failed", "retry_wait"])).state).toBe("succeeded");
    // Gone from everything that lists live tasks; in the trash with its purge time.
    expect((await srv.api("GET", `/tasks/${task.id}`)).status).toBe(404);
    expect(((await srv.api("GET", "/tasks")).body as { id: string }[]).map((t) => t.id)).not.toContain(task.id);
    const trash = await srv.api("GET", "/trash");
    expect(trash.status).toBe(200);
    expect(trash.body).toHaveLength(1);
    expect(trash.body[0]).toMatchObject({ id: task.id, title: task.title });
    expect(Date.parse(trash.body[0].purgeAt) - Date.parse(trash.body[0].deletedAt)).toBe(WEEK);
    // The worktree is removed; the branch and the saved work are kept; the purge waits.
    expect(existsSync(slot.worktreePath)).toBe(false);
    expect(gitSync(repo.path, "branch", "--list", slot.worktreeBranch).trim()).not.toBe("");
    expect(gitSync(repo.path, "for-each-ref", "--format=%(refname)", "refs/grove/").trim()).toContain(task.id);
    const purge = await waitFor(async () => (await jobsOf(srv.api, task.id)).find((j) => j.trigger === "purge"), "the purge job");
    expect(purge).toMatchObject({ state: "pending" });

    const back = await srv.api("POST", `/tasks/${task.id}/restore-deleted`);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ id: task.id, title: task.title });
    expect(back.body.deletedAt ?? null).toBeNull();
    expect((await srv.api("GET", `/tasks/${task.id}`)).status).toBe(200);
    expect((await srv.api("GET", "/trash")).body).toEqual([]);
    expect((await jobsOf(srv.api, task.id)).find((j) => j.id === purge.id).state).toBe("cancelled");
    // Transcripts as they were.
    const sessions = (await srv.api("GET", `/tasks/${task.id}/sessions`)).body as { id: string }[];
    expect(sessions.map((x) => x.id)).toEqual([s.body.id]);
    expect(((await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { id: string }[]).map((m) => m.id)).toEqual(transcript.map((m) => m.id));
    // The next session brings the worktree back on its branch with the saved work.
    const s2 = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say back" });
    expect(s2.status).toBe(201);
    await waitForSession(srv.api, s2.body.id, ["waiting_for_input"]);
    expect(readFileSync(join(slot.worktreePath, "done.txt"), "utf8")).toBe("committed work");
    expect(readFileSync(join(slot.worktreePath, "wip.txt"), "utf8")).toBe("uncommitted work");
    expect(gitSync(slot.worktreePath, "rev-parse", "--abbrev-ref", "HEAD").trim()).toBe(slot.worktreeBranch);

    // Not in the trash any more: restore again is refused; an unknown id is 404.
    const again = await srv.api("POST", `/tasks/${task.id}/restore-deleted`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("task_not_in_trash");
    expect((await srv.api("POST", "/tasks/task_nope/restore-deleted")).status).toBe(404);
  });

  it("LIVE-5: after the retention the durable purge job removes the task, its merged branch and saved work", async () => {
    const srv = await perTest.start({ GROVE_TRASH_RETENTION_MS: "0" });
    const { task, repo } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write wip.txt uncommitted" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const slot = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body.repositories[0];
    const del = await srv.api("DELETE", `/tasks/${task.id}?discardChanges=true`);
    await waitForJob(srv.api, task.id, del.body.jobId, ["succeeded"]);
    const purge = await waitFor(
      async () => (await jobsOf(srv.api, task.id)).find((j) => j.trigger === "purge" && j.state === "succeeded"),
      "the purge job to succeed",
    );
    expect(purge.attempts).toBe(1);
    expect((await srv.api("GET", "/trash")).body).toEqual([]);
    expect((await srv.api("POST", `/tasks/${task.id}/restore-deleted`)).status).toBe(404);
    expect((await srv.api("GET", `/sessions/${s.body.id}`)).status).toBe(404);
    expect(gitSync(repo.path, "branch", "--list", slot.worktreeBranch).trim()).toBe("");
    expect(gitSync(repo.path, "for-each-ref", "refs/grove/archived/").trim()).toBe("");
  });
});

describe("LIVE-5 grove task trash / restore-deleted", () => {
  const perTest = serverPerTest("sqlite");

  it("LIVE-5: the CLI lists the trash and restores from it", async () => {
    const srv = await perTest.start();
    const { task } = await repoAndTask(srv, { title: "Undo me" });
    const del = await srv.api("DELETE", `/tasks/${task.id}`);
    await waitForJob(srv.api, task.id, del.body.jobId, ["succeeded"]);
    const ls = await runGrove(["task", "trash", "--server", srv.url]);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toContain(task.id);
    expect(ls.stdout).toContain("Undo me");
    const json = await runGrove(["task", "trash", "--json", "--server", srv.url]);
    expect(JSON.parse(json.stdout).map((t: { id: string }) => t.id)).toEqual([task.id]);
    const r = await runGrove(["task", "restore-deleted", task.id, "--server", srv.url]);
    expect(r.code, r.stderr).toBe(0);
    expect((await srv.api("GET", `/tasks/${task.id}`)).status).toBe(200);
    const twice = await runGrove(["task", "restore-deleted", task.id, "--server", srv.url]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/^error: task_not_in_trash: /);
  });
});
