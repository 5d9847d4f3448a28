import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { repoAndTask } from "../fixture/scenario.js";
import { openEvents, waitFor, waitForSession, serverPerFile } from "../fixture/server.js";

describe.each(DATABASES)("vertical slice over HTTP (%s)", (kind) => {
  // Each test makes its own repository and task: one server serves them all.
  const perFile = serverPerFile(kind);

  it("SES-2 SES-3 SES-4 ENV-5: session 2 attaches to session 1's worktree with its own agent process", async () => {
    const srv = await perFile.start();
    const events = await openEvents(srv.url);
    const { task, repository } = await repoAndTask(srv);

    const s1 = await srv.api("POST", `/tasks/${task.id}/sessions`, {
      prompt: "write done.txt committed work\ncommit add done.txt\nwrite wip.txt uncommitted work\nsay finished",
    });
    expect(s1.status).toBe(201);
    await waitForSession(srv.api, s1.body.id, ["waiting_for_input"]);
    const ws1 = (await srv.api("GET", `/sessions/${s1.body.id}/workspace`)).body;
    expect(ws1.repositories).toHaveLength(1);
    const slot1 = ws1.repositories[0];
    expect(slot1.repositoryId).toBe(repository.id);
    expect(slot1.worktreePath).toBe(ws1.workspacePath);
    expect(slot1.worktreeBranch).toMatch(/^grove\/fix-the-widget-/);
    expect(gitSync(slot1.worktreePath, "log", "-1", "--format=%s").trim()).toBe("add done.txt");
    expect(gitSync(slot1.worktreePath, "status", "--porcelain")).toContain("?? wip.txt");

    const s2 = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "read done.txt\nread wip.txt" });
    expect(s2.status).toBe(201);
    await waitForSession(srv.api, s2.body.id, ["waiting_for_input"]);
    const ws2 = (await srv.api("GET", `/sessions/${s2.body.id}/workspace`)).body;
    expect(ws2.taskEnvironmentId).toBe(ws1.taskEnvironmentId);
    expect(ws2.workspacePath).toBe(ws1.workspacePath);
    expect(ws2.repositories[0]).toMatchObject({ worktreeId: slot1.worktreeId, worktreePath: slot1.worktreePath, worktreeBranch: slot1.worktreeBranch });

    const msgs = (await srv.api("GET", `/sessions/${s2.body.id}/messages`)).body as { role: string; text: string }[];
    const agentText = msgs
      .filter((m) => m.role === "agent")
      .map((m) => m.text)
      .join("\n");
    expect(agentText).toContain("committed work");
    expect(agentText).toContain("uncommitted work");

    // Two separate agent processes, both started in the same worktree (SES-4).
    const pids = [s1.body.id, s2.body.id].map((id) => srv.server.deps.agents.get(id)?.pid);
    expect(pids[0]).toBeTypeOf("number");
    expect(pids[1]).toBeTypeOf("number");
    expect(pids[0]).not.toBe(pids[1]);
    for (const id of [s1.body.id, s2.body.id]) {
      const log = readFileSync(join(srv.home, "logs", `${id}.acp.jsonl`), "utf8");
      expect(log).toContain(`"cwd":${JSON.stringify(slot1.worktreePath)}`);
    }

    // Task state follows its sessions; events were published live.
    await waitFor(async () => (await srv.api("GET", `/tasks/${task.id}`)).body.state === "review", "the task to be in review");
    await waitFor(() => events.frames.some((f) => f.type === "session.message" && f.data.sessionId === s2.body.id), "session.message event");
    const types = new Set(events.frames.map((f) => f.type));
    for (const t of ["task.created", "session.created", "session.state_changed", "session.message", "task.updated"]) expect(types).toContain(t);
    events.close();
  });

  it("ENV-6 SES-7: deleting the only session keeps worktree, branch and files; the next session attaches", async () => {
    const srv = await perFile.start();
    const { task } = await repoAndTask(srv);
    const s1 = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write keep.txt precious" });
    await waitForSession(srv.api, s1.body.id, ["waiting_for_input"]);
    const ws1 = (await srv.api("GET", `/sessions/${s1.body.id}/workspace`)).body;
    expect((await srv.api("DELETE", `/sessions/${s1.body.id}`)).status).toBe(204);
    expect((await srv.api("GET", `/sessions/${s1.body.id}`)).status).toBe(404);
    expect(readFileSync(join(ws1.workspacePath, "keep.txt"), "utf8")).toBe("precious");
    const s2 = await srv.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(s2.status).toBe(201);
    const ws2 = (await srv.api("GET", `/sessions/${s2.body.id}/workspace`)).body;
    expect(ws2.repositories[0].worktreeId).toBe(ws1.repositories[0].worktreeId);
    expect(existsSync(join(ws2.workspacePath, "keep.txt"))).toBe(true);
  });

  it("CHG-1 CHG-2: Changes lists committed and uncommitted files computed in the worktree", async () => {
    const srv = await perFile.start();
    const { task, repository, repo } = await repoAndTask(srv);
    const s1 = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write a.txt one\\ntwo\ncommit a\nwrite b.txt new\nappend README.md more" });
    await waitForSession(srv.api, s1.body.id, ["waiting_for_input"]);
    const ch = (await srv.api("GET", `/tasks/${task.id}/changes`)).body;
    expect(ch.repositories).toHaveLength(1);
    const r = ch.repositories[0];
    expect(r.ahead).toBe(1);
    const byPath = Object.fromEntries(r.files.map((f: any) => [f.path, f]));
    expect(byPath["a.txt"]).toMatchObject({ status: "added", additions: 2 });
    expect(byPath["b.txt"]).toMatchObject({ status: "untracked", additions: 1 });
    expect(byPath["README.md"]).toMatchObject({ status: "modified" });
    // The source checkout was never touched.
    expect(gitSync(repo.path, "status", "--porcelain")).toBe("");
    const d = await srv.api("GET", `/tasks/${task.id}/changes/diff?repositoryId=${repository.id}&path=b.txt`);
    expect(d.status).toBe(200);
    expect(d.body.patch).toContain("+new");
  });
});
