import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { gitSync, makeRepo } from "../fixture/git.js";
import { apiClient, spawnServer, startTestServer, waitForSession } from "../fixture/server.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

const FILES = { "README.md": "top\n", "app/a.txt": "app\n", "app/deep/c.txt": "deep\n", "lib/b.txt": "lib\n", "docs/d.txt": "docs\n" };

/** The files git has checked out in `dir` (relative paths, sorted), `.git` left out. */
function checkedOut(dir: string): string[] {
  return gitSync(dir, "ls-files", "-t")
    .split("\n")
    .filter((l) => l.startsWith("H "))
    .map((l) => l.slice(2))
    .sort();
}

describe.each(ONE_DATABASE)("WT-11 sparse checkout per repository (%s)", (kind) => {
  const cleanups = cleanupsAfterEach();

  it("WT-11.1 a repository's cone: new worktrees hold only its directories (and top-level files); Changes show no deletions; the agent's commit merges with the rest of the tree intact", async () => {
    const srv = await startTestServer(kind, undefined, { GROVE_GIT_AUTHOR_NAME: "Person", GROVE_GIT_AUTHOR_EMAIL: "person@example.invalid" });
    cleanups.push(() => srv.close());
    const repo = await makeRepo({ files: FILES, name: "sparse-mono" });
    cleanups.push(() => repo.cleanup());
    const r = await srv.api("POST", "/repositories", { path: repo.path, sparseCheckout: ["app"] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.sparseCheckout).toEqual(["app"]);
    expect((await srv.api("GET", `/repositories/${r.body.id}`)).body.sparseCheckout).toEqual(["app"]);
    const task = (await srv.api("POST", "/tasks", { title: "Sparse work", repositories: [{ repositoryId: r.body.id }] })).body;
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "scripted", prompt: "write app/new.txt made in the cone\ncommit add app/new.txt" });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const worktree = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body.workspacePath as string;
    expect(checkedOut(worktree)).toEqual(["README.md", "app/a.txt", "app/deep/c.txt", "app/new.txt"]);
    expect(existsSync(join(worktree, "lib"))).toBe(false);
    expect(existsSync(join(worktree, "docs"))).toBe(false);
    // Outside the cone is skipped, not deleted: nothing to review but the agent's commit.
    const changes = (await srv.api("GET", `/tasks/${task.id}/changes`)).body.repositories[0];
    expect(changes.files.map((f: any) => f.path)).toEqual(["app/new.txt"]);
    expect(changes.ahead).toBe(1);
    const merged = await srv.api("POST", `/tasks/${task.id}/merge`, {});
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(gitSync(repo.path, "ls-tree", "-r", "--name-only", "main").split("\n").filter(Boolean).sort()).toEqual([
      "README.md",
      "app/a.txt",
      "app/deep/c.txt",
      "app/new.txt",
      "docs/d.txt",
      "lib/b.txt",
    ]);
    expect(gitSync(repo.path, "show", "main:app/new.txt")).toBe("made in the cone");
  });

  it("WT-11.2 bad entries are refused with the field and nothing is written; a changed cone applies to new worktrees only", async () => {
    const srv = await startTestServer(kind);
    cleanups.push(() => srv.close());
    const repo = await makeRepo({ files: FILES, name: "sparse-rules" });
    cleanups.push(() => repo.cleanup());
    for (const bad of [["../etc"], ["/abs"], ["app/*"], ["-x"], [".git"], ["app", "app"], ["a//b"]]) {
      const res = await srv.api("POST", "/repositories", { path: repo.path, sparseCheckout: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.body.error.details.field).toBe("sparseCheckout");
    }
    expect((await srv.api("GET", "/repositories")).body).toEqual([]);
    const r = await srv.api("POST", "/repositories", { path: repo.path, sparseCheckout: ["app"] });
    expect(r.status).toBe(201);
    const first = (await srv.api("POST", "/tasks", { title: "First", repositories: [{ repositoryId: r.body.id }] })).body;
    const s1 = await srv.api("POST", `/tasks/${first.id}/sessions`, { agent: "scripted" });
    await waitForSession(srv.api, s1.body.id, ["waiting_for_input"]);
    const wt1 = (await srv.api("GET", `/sessions/${s1.body.id}/workspace`)).body.workspacePath as string;

    const refused = await srv.api("PATCH", `/repositories/${r.body.id}`, { sparseCheckout: ["lib", "../x"] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toBe("sparseCheckout");
    expect((await srv.api("GET", `/repositories/${r.body.id}`)).body.sparseCheckout).toEqual(["app"]);
    const changed = await srv.api("PATCH", `/repositories/${r.body.id}`, { sparseCheckout: ["lib"] });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.sparseCheckout).toEqual(["lib"]);
    const second = (await srv.api("POST", "/tasks", { title: "Second", repositories: [{ repositoryId: r.body.id }] })).body;
    const s2 = await srv.api("POST", `/tasks/${second.id}/sessions`, { agent: "scripted" });
    await waitForSession(srv.api, s2.body.id, ["waiting_for_input"]);
    const wt2 = (await srv.api("GET", `/sessions/${s2.body.id}/workspace`)).body.workspacePath as string;
    expect(checkedOut(wt1)).toEqual(["README.md", "app/a.txt", "app/deep/c.txt"]);
    expect(checkedOut(wt2)).toEqual(["README.md", "lib/b.txt"]);
    // An empty cone is the whole tree again.
    expect((await srv.api("PATCH", `/repositories/${r.body.id}`, { sparseCheckout: [] })).status).toBe(200);
    const third = (await srv.api("POST", "/tasks", { title: "Third", repositories: [{ repositoryId: r.body.id }] })).body;
    const s3 = await srv.api("POST", `/tasks/${third.id}/sessions`, { agent: "scripted" });
    await waitForSession(srv.api, s3.body.id, ["waiting_for_input"]);
    const wt3 = (await srv.api("GET", `/sessions/${s3.body.id}/workspace`)).body.workspacePath as string;
    expect(checkedOut(wt3)).toEqual(["README.md", "app/a.txt", "app/deep/c.txt", "docs/d.txt", "lib/b.txt"]);
  });

  it("WT-11.3 kill -9 between the sparse add and its checkout: the retry finishes that worktree (cone checked out, nothing staged) instead of adopting it empty", async () => {
    const db = await freshDatabase(kind);
    cleanups.push(async () => {
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    const repo = await makeRepo({ files: FILES, name: "sparse-crash" });
    cleanups.push(() => repo.cleanup());
    const env = { GROVE_HOME: db.home, GROVE_DATABASE_URL: db.databaseUrl };
    const faulty = await spawnServer({ ...env, GROVE_FAULT: "launch.after_sparse_add:exit" });
    let api = apiClient(faulty.url);
    const r = await api("POST", "/repositories", { path: repo.path, sparseCheckout: ["app"] });
    expect(r.status).toBe(201);
    const t = await api("POST", "/tasks", { title: "Crashed sparse", repositories: [{ repositoryId: r.body.id }] });
    await expect(api("POST", `/tasks/${t.body.id}/sessions`, {})).rejects.toThrow();
    expect((await faulty.exited).code).toBe(137);
    const worktrees = gitSync(repo.path, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree "));
    expect(worktrees).toHaveLength(2);

    const server = await spawnServer(env);
    cleanups.push(async () => {
      server.child.kill("SIGKILL");
      await server.exited;
    });
    api = apiClient(server.url);
    const again = await api("POST", `/tasks/${t.body.id}/sessions`, { agent: "scripted", prompt: "write app/proof.txt finished" });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    await waitForSession(api, again.body.id, ["waiting_for_input"]);
    const ws = (await api("GET", `/sessions/${again.body.id}/workspace`)).body.workspacePath as string;
    expect(`worktree ${ws}`).toBe(worktrees[1]);
    expect(readFileSync(join(ws, "app", "proof.txt"), "utf8")).toBe("finished");
    expect(checkedOut(ws)).toEqual(["README.md", "app/a.txt", "app/deep/c.txt"]);
    const changes = (await api("GET", `/tasks/${t.body.id}/changes`)).body.repositories[0];
    expect(changes.files.map((f: any) => `${f.status} ${f.path}`)).toEqual(["untracked app/proof.txt"]);
    const doctor = (await api("GET", "/doctor")).body;
    expect(JSON.stringify(doctor.findings ?? doctor)).not.toMatch(/orphan|dangling/);
  });
});
