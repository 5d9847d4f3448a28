import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { conflictHunks } from "../../src/orchestrator/review/review-conflicts.js";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { reviewTask } from "./helpers.js";

describe("RV-8 conflict hunks", () => {
  test("RV-8: conflictHunks finds every marked region with its 1-based lines", () => {
    const text = ["a", "<<<<<<< HEAD", "mine", "=======", "theirs", ">>>>>>> abc (x)", "b", "<<<<<<< HEAD", ">>>>>>> def", ""].join("\n");
    expect(conflictHunks(text)).toEqual([
      { startLine: 2, endLine: 6, text: "<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> abc (x)" },
      { startLine: 8, endLine: 9, text: "<<<<<<< HEAD\n>>>>>>> def" },
    ]);
    expect(conflictHunks("no markers\n<<<<<<<< eight\n")).toEqual([]);
  });
});

describe.each(ONE_DATABASE)("RV-8 conflicts: list, send to the agent, continue, abort (%s)", (kind) => {
  let srv: TestServer;
  let t: Awaited<ReturnType<typeof reviewTask>>;
  const update = (body: Record<string, unknown> = {}) => srv.api("POST", `/tasks/${t.task.id}/update-from-base`, body);
  const conflicts = () => srv.api("GET", `/tasks/${t.task.id}/conflicts`);
  // LIVE-4: the task's open `conflict` inbox items.
  const conflictItems = async () =>
    ((await srv.api("GET", "/inbox?state=open")).body as { kind: string; taskId: string; title: string }[]).filter(
      (i) => i.kind === "conflict" && i.taskId === t.task.id,
    );
  const onMain = (content: string) => {
    writeFileSync(join(t.repo.path, "a.txt"), content);
    t.repo.git("commit", "-qam", "main: a");
  };

  beforeAll(async () => {
    srv = await startTestServer(kind);
    t = await reviewTask(srv, { files: { "a.txt": "1\n2\n3\n" }, prompt: "write a.txt 1\\ntask\\n3\\n\ncommit task: a" });
  }, 60_000);
  afterAll(async () => srv?.close());

  test("RV-8: kept conflicts are listed with their hunks; the agent gets them quoted in one prompt; continue finishes", async () => {
    expect((await conflicts()).body).toEqual({ taskId: t.task.id, repositories: [] });
    onMain("1\nmain\n3\n");
    const kept = await update({ keepConflicts: true });
    expect(kept.body.results[0]).toMatchObject({ outcome: "conflicts", conflicts: ["a.txt"] });
    const [item] = await waitFor(async () => ((await conflictItems()).length === 1 ? conflictItems() : undefined), "the conflict inbox item");
    expect(item!.title).toContain("conflicts in 1 file");

    const c = await conflicts();
    expect(c.status).toBe(200);
    expect(c.body.repositories).toHaveLength(1);
    const repo = c.body.repositories[0];
    expect(repo).toMatchObject({ repositoryId: t.repository.id, operation: "rebase", backupRef: `refs/grove/backup/${t.task.id}/1` });
    expect(repo.files).toHaveLength(1);
    expect(repo.files[0]).toMatchObject({ path: "a.txt", resolved: false });
    expect(repo.files[0].hunks).toHaveLength(1);
    expect(repo.files[0].hunks[0]).toMatchObject({ startLine: 2 });
    expect(repo.files[0].hunks[0].text).toMatch(/^<{7} [^\n]*\nmain\n={7}\ntask\n>{7} /);

    // SEC-2 / SBX-4.7: the conflicted file is read confined to the worktree and never blocking:
    // a symlink out of it (to a file with markers) or a FIFO in its place has no hunks, and the
    // list still answers.
    const file = join(t.worktree, "a.txt");
    const marked = readFileSync(file, "utf8");
    const outside = join(mkdtempSync(join(tmpdir(), "grove-outside-")), "marked.txt");
    writeFileSync(outside, marked);
    rmSync(file);
    symlinkSync(outside, file);
    expect((await conflicts()).body.repositories[0].files).toEqual([{ path: "a.txt", resolved: true, hunks: [] }]);
    rmSync(file);
    execFileSync("mkfifo", [file]);
    expect((await conflicts()).body.repositories[0].files).toEqual([{ path: "a.txt", resolved: true, hunks: [] }]);
    rmSync(file);
    writeFileSync(file, marked);
    rmSync(dirname(outside), { recursive: true, force: true });

    // A session of another task, or none to send: refused, nothing sent.
    const other = await reviewTask(srv, { title: "Other" });
    const foreign = await srv.api("POST", `/tasks/${t.task.id}/conflicts/send`, { sessionId: other.session.id });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: "invalid_request", details: { field: "sessionId" } });
    const none = await srv.api("POST", `/tasks/${other.task.id}/conflicts/send`, { sessionId: other.session.id });
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe("update_not_in_progress");

    const sent = await srv.api("POST", `/tasks/${t.task.id}/conflicts/send`, { sessionId: t.session.id, prompt: "write a.txt 1\\nmain and task\\n3\\n" });
    expect(sent.status).toBe(202);
    await waitForSession(srv.api, t.session.id, ["waiting_for_input"]);
    const msgs = (await srv.api("GET", `/sessions/${t.session.id}/messages`)).body as { role: string; text: string }[];
    const prompt = msgs.filter((m) => m.role === "user").pop()!.text;
    expect(prompt).toContain("a.txt, lines 2-6:");
    // Every hunk line quoted, so no line of it is a command to an agent reading line by line.
    for (const line of repo.files[0].hunks[0].text.split("\n")) expect(prompt).toContain(`> ${line}`);
    expect(prompt.endsWith("write a.txt 1\\nmain and task\\n3\\n")).toBe(true);
    expect(readFileSync(join(t.worktree, "a.txt"), "utf8")).toBe("1\nmain and task\n3\n");

    expect((await conflicts()).body.repositories[0].files[0]).toMatchObject({ path: "a.txt", resolved: true, hunks: [] });
    const done = await srv.api("POST", `/tasks/${t.task.id}/update-from-base/continue`, { repositoryId: t.repository.id });
    expect(done.status).toBe(200);
    expect(done.body.results[0].outcome).toBe("updated");
    expect(gitSync(t.worktree, "log", "--format=%s", "-2").trim().split("\n")).toEqual(["task: a", "main: a"]);
    expect((await conflicts()).body.repositories).toEqual([]);
    await waitFor(async () => ((await conflictItems()).length === 0 ? true : undefined), "the conflict item done after continue");
  });

  test("RV-8: abort from a kept conflict puts the branch back; the conflict list is empty again", async () => {
    const head = gitSync(t.worktree, "rev-parse", "HEAD").trim();
    onMain("1\nmain again\n3\n");
    expect((await update({ keepConflicts: true })).body.results[0].outcome).toBe("conflicts");
    expect((await conflicts()).body.repositories).toHaveLength(1);
    await waitFor(async () => ((await conflictItems()).length === 1 ? true : undefined), "a new conflict item for the second stop");
    const aborted = await srv.api("POST", `/tasks/${t.task.id}/update-from-base/abort`, { repositoryId: t.repository.id });
    expect(aborted.body.results[0]).toMatchObject({ outcome: "aborted", commit: head });
    expect((await conflicts()).body.repositories).toEqual([]);
    await waitFor(async () => ((await conflictItems()).length === 0 ? true : undefined), "the conflict item done after abort");
  });
});
