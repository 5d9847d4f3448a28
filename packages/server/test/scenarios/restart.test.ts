import { spawn } from "node:child_process";
import { readFileSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isGone } from "../agents/fixture.js";
import { crashServers } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { gitSync, makeRepo } from "../fixture/git.js";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { apiClient, waitFor, waitForSession } from "../fixture/server.js";

/** Running, not a zombie: an orphan's zombie lingers until PID 1 reaps it, which a loaded machine delays. */
const alive = (pid: number): boolean => !isGone(pid);

describe.each(DATABASES)("restart (%s)", (kind) => {
  const crash = crashServers(kind);
  const cleanups = crash.cleanups;

  it("SES-6 CHG-4 SEC-4: kill -9 mid-turn, restart → waiting_for_input, same workspace and Changes, resume via session/load in the same cwd", async () => {
    const db = await crash.home();
    const spawnIt = async () => (await db.start()).server;
    let server = await spawnIt();
    let api = apiClient(server.url);
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    const r = await api("POST", "/repositories", { path: repo.path });
    const t = await api("POST", "/tasks", { title: "Survive a crash", repositories: [{ repositoryId: r.body.id }] });
    const s = await api("POST", `/tasks/${t.body.id}/sessions`, {
      prompt: "write kept.txt committed\ncommit keep this\nwrite wip.txt not yet committed\nsay sleeping\nsleep 60000\nsay never",
    });
    expect(s.status).toBe(201);
    const sid = s.body.id as string;
    const before = (await api("GET", `/sessions/${sid}/workspace`)).body;
    await waitFor(async () => {
      const m = (await api("GET", `/sessions/${sid}/messages`)).body as { role: string; text: string }[];
      return m.some((x) => x.role === "agent" && x.text.includes("sleeping"));
    }, "the agent to reach its sleep");
    const running = (await api("GET", `/sessions/${sid}`)).body;
    expect(running.state).toBe("running");
    await waitFor(async () => (await api("GET", `/tasks/${t.body.id}`)).body.state === "in_progress", "the task to be in progress");

    server.child.kill("SIGKILL");
    await server.exited;

    server = await spawnIt();
    api = apiClient(server.url);
    const after = await waitForSession(api, sid, ["waiting_for_input"]);
    expect(after.lastError).toBeNull();
    // Task states are re-derived right after `listening` (start-up that does not grow).
    await waitFor(async () => (await api("GET", `/tasks/${t.body.id}`)).body.state === "review", "the task to be in review");
    const ws = (await api("GET", `/sessions/${sid}/workspace`)).body;
    expect(ws).toEqual(before);
    const changes = (await api("GET", `/tasks/${t.body.id}/changes`)).body;
    const paths = changes.repositories[0].files.map((f: { path: string }) => f.path).sort();
    expect(paths).toEqual(["kept.txt", "wip.txt"]);
    expect(changes.repositories[0].worktreePath).toBe(before.workspacePath);

    const p = await api("POST", `/sessions/${sid}/prompt`, { prompt: "say hello again" });
    expect(p.status).toBe(202);
    await waitForSession(api, sid, ["waiting_for_input"]);
    const msgs = (await api("GET", `/sessions/${sid}/messages`)).body as { role: string; text: string }[];
    expect(
      msgs
        .filter((m) => m.role === "agent")
        .map((m) => m.text)
        .join("\n"),
    ).toContain("hello again");
    const log = readFileSync(join(db.home, "logs", `${sid}.acp.jsonl`), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const load = log.find((f) => f.dir === "out" && f.msg?.method === "session/load");
    expect(load?.msg.params.cwd).toBe(before.workspacePath);
    expect(load?.msg.params.sessionId).toBeTruthy();
    expect(gitSync(before.workspacePath, "log", "-1", "--format=%s").trim()).toBe("keep this");
  });

  // A confined agent dies with the server (sandbox-processes.test.ts); one whose profile opts out of
  // the sandbox can outlive it, and start-up recovery is what stops it.
  it("SES-6: agent processes left by a killed server (a profile with sandbox off) are stopped at start-up (pid and start time match)", async () => {
    const db = await crash.home();
    // An agent like an `npx → sh → node` tree: its shell outlives the ACP process when the client goes away.
    const { command, args } = scriptedAgentCommand();
    const shellLine = [command, ...args].map((a) => `'${a}'`).join(" ") + "; sleep 600";
    writeFileSync(
      join(db.home, "agents.json"),
      JSON.stringify({ agents: [{ name: "stubborn", command: "/bin/sh", args: ["-c", shellLine], permissionPolicy: "auto_approve", sandbox: "off" }] }),
    );
    const { server: first, api } = await db.start();
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    const r = await api("POST", "/repositories", { path: repo.path });
    const t = await api("POST", "/tasks", { title: "orphans", repositories: [{ repositoryId: r.body.id }] });
    const s = await api("POST", `/tasks/${t.body.id}/sessions`, { agent: "stubborn" });
    expect(s.body.state).toBe("waiting_for_input");
    const ws = (await api("GET", `/sessions/${s.body.id}/workspace`)).body;
    const shellPid = await waitFor(() => findProcess(ws.workspacePath, "sh"), "the agent's shell");
    first.child.kill("SIGKILL");
    await first.exited;
    // The ACP process saw its stdin close and exited; the shell lingers as an orphan.
    await new Promise((res) => setTimeout(res, 500));
    expect(alive(shellPid)).toBe(true);
    const { server: second } = await db.start();
    await waitFor(() => !alive(shellPid), `orphan agent ${shellPid} to be stopped`);
    expect(second.output()).toContain("listening on");
    expect(second.output()).toMatch(/next: open http:\/\/\S+ in your browser/);
  });

  it("SES-6: a recorded pid whose start time differs (a recycled pid) is never killed", async () => {
    const db = await crash.home();
    const bystander = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
    cleanups.push(async () => {
      bystander.kill("SIGKILL");
    });
    const { openStore } = await import("../../src/store/open.js");
    const { server, api } = await db.start();
    const runnerId = (await api("GET", "/health")).body.runnerId as string;
    server.child.kill("SIGKILL");
    await server.exited;
    const store = await openStore({ home: db.home, ...(db.databaseUrl ? { databaseUrl: db.databaseUrl } : {}) });
    await store.upsertAgentProcess({ sessionId: "ses_gone", runnerId, pid: bystander.pid!, startTime: "1", createdAt: new Date().toISOString() });
    await store.close();
    await db.start();
    await new Promise((res) => setTimeout(res, 500));
    expect(alive(bystander.pid!)).toBe(true);
  });
});

/** A process whose cwd is `dir` and whose command name is `comm`. */
function findProcess(dir: string, comm: string): number | undefined {
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readlinkSync(`/proc/${p}/cwd`) === dir && readFileSync(`/proc/${p}/comm`, "utf8").trim() === comm) return Number(p);
    } catch {
      // gone or not ours
    }
  }
  return undefined;
}

describe.each(DATABASES)("interrupted launch (%s)", (kind) => {
  const crash = crashServers(kind);

  it("SEC-4 SES-6: kill between `git worktree add` and persisting the row → launch_interrupted; the retry adopts that exact worktree", async () => {
    const db = await crash.home();
    const repo = await makeRepo();
    crash.cleanups.push(repo.cleanup);
    const { server: faulty } = await db.start("launch.after_worktree_add:exit");
    let api = apiClient(faulty.url);
    const r = await api("POST", "/repositories", { path: repo.path });
    const t = await api("POST", "/tasks", { title: "Interrupted", repositories: [{ repositoryId: r.body.id }] });
    await expect(api("POST", `/tasks/${t.body.id}/sessions`, {})).rejects.toThrow();
    expect((await faulty.exited).code).toBe(137);
    const worktreesAfterCrash = gitSync(repo.path, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree "));
    expect(worktreesAfterCrash).toHaveLength(2);

    ({ api } = await db.start());
    // A rename between the attempts does not change the planned branch (WT-2).
    expect((await api("PATCH", `/tasks/${t.body.id}`, { title: "Renamed after the crash" })).status).toBe(200);
    const [first] = (await api("GET", `/tasks/${t.body.id}/sessions`)).body;
    expect(first.state).toBe("failed");
    expect(first.lastError.code).toBe("launch_interrupted");
    const again = await api("POST", `/tasks/${t.body.id}/sessions`, { prompt: "write proof.txt adopted" });
    expect(again.status).toBe(201);
    expect(again.body.state).not.toBe("failed");
    await waitForSession(api, again.body.id, ["waiting_for_input"]);
    const ws = (await api("GET", `/sessions/${again.body.id}/workspace`)).body;
    expect(`worktree ${ws.workspacePath}`).toBe(worktreesAfterCrash[1]);
    expect(
      gitSync(repo.path, "worktree", "list", "--porcelain")
        .split("\n")
        .filter((l) => l.startsWith("worktree ")),
    ).toEqual(worktreesAfterCrash);
    expect(readFileSync(join(ws.workspacePath, "proof.txt"), "utf8")).toBe("adopted");
  });
  it("SEC-4 WT-7 WT-8: kill during a failed launch's rollback (row gone, worktree not yet) → the retry adopts the worktree and succeeds", async () => {
    const db = await crash.home();
    const a = await makeRepo();
    const b = await makeRepo();
    crash.cleanups.push(a.cleanup, b.cleanup);
    b.git("branch", "feature");
    const { server: faulty } = await db.start("launch.rollback_after_row_delete:exit");
    let api = apiClient(faulty.url);
    const ra = await api("POST", "/repositories", { path: a.path, name: "first" });
    const rb = await api("POST", "/repositories", { path: b.path, name: "second" });
    const t = await api("POST", "/tasks", {
      title: "Rollback crash",
      repositories: [{ repositoryId: ra.body.id }, { repositoryId: rb.body.id, baseBranch: "feature" }],
    });
    expect(t.status).toBe(201);
    const featureTip = b.git("rev-parse", "feature").trim();
    b.git("branch", "-D", "feature"); // the second slot fails, the first slot's worktree is rolled back
    await expect(api("POST", `/tasks/${t.body.id}/sessions`, {})).rejects.toThrow();
    expect((await faulty.exited).code).toBe(137);
    const left = a
      .git("worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree "));
    expect(left).toHaveLength(2); // the first slot's worktree survived the crash, without its row

    ({ api } = await db.start());
    b.git("branch", "feature", featureTip);
    const again = await api("POST", `/tasks/${t.body.id}/sessions`, {});
    expect(again.status).toBe(201);
    expect(again.body.state).toBe("waiting_for_input");
    const ws = (await api("GET", `/sessions/${again.body.id}/workspace`)).body;
    expect(`worktree ${ws.repositories[0].worktreePath}`).toBe(left[1]);
    expect(
      a
        .git("worktree", "list", "--porcelain")
        .split("\n")
        .filter((l) => l.startsWith("worktree ")),
    ).toEqual(left);
  });
});
