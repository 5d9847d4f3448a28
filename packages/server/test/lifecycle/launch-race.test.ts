import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { gitSync, makeRepo, tempDir } from "../fixture/git.js";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { startGitHttpServer, type GitHttpServer } from "../remote/harness/git-http-server.js";

describe.each(DATABASES)("LC-1 a prompt that brings a worktree back never outlives an archive (%s)", (kind) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  it("LC-1 LC-3 WT-5: archive lands while a prompt is recreating the worktree (slow fetch) → the job succeeds, no worktree and no agent remain", async () => {
    const root = await tempDir("grove-origin-root-");
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    await mkdir(join(root, "acme"), { recursive: true });
    gitSync(root, "clone", "-q", "--bare", repo.path, join(root, "acme", "widget.git"));
    const origin: GitHttpServer = await startGitHttpServer({ root, kind: "github", slowMs: 1500 });
    cleanups.push(() => origin.close());
    repo.git("remote", "add", "origin", `${origin.url}/acme/widget.git`);

    srv = await startTestServer(kind);
    const r = await srv.api("POST", "/repositories", { path: repo.path, pullBeforeWorktree: true });
    expect(r.status).toBe(201);
    const t = await srv.api("POST", "/tasks", { title: "Race", repositories: [{ repositoryId: r.body.id }] });
    const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    expect(s.body.state).toBe("waiting_for_input");
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    await srv.server.deps.agents.stop(s.body.id);
    await rm(ws.workspacePath, { recursive: true, force: true });

    origin.setMode("slow");
    const prompt = srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "write late.txt too late" });
    await waitFor(() => srv!.server.deps.launches.count(t.body.id) > 0, "the prompt's launch to be in flight");
    const archive = await srv.api("POST", `/tasks/${t.body.id}/archive`);
    expect(archive.status).toBe(202);
    expect((await prompt).status).toBe(202);
    const job = await waitFor(
      async () => {
        const jobs = (await srv!.api("GET", `/cleanup-jobs?taskId=${t.body.id}`)).body as { id: string; state: string }[];
        const j = jobs.find((x) => x.id === archive.body.jobId);
        return j && ["succeeded", "failed", "retry_wait"].includes(j.state) ? j : undefined;
      },
      "the archive job",
      30_000,
    );
    expect(job.state).toBe("succeeded");
    const session = await waitForSession(srv.api, s.body.id, ["failed", "waiting_for_input"]);
    expect(session.state).toBe("failed");
    expect(["task_cleanup_in_progress", "task_archived"]).toContain(session.lastError.code);
    expect(srv.server.deps.agents.get(s.body.id)).toBeUndefined();
    expect(existsSync(ws.workspacePath)).toBe(false);
    expect(existsSync(join(ws.workspacePath, "late.txt"))).toBe(false);
    const env = (await srv.api("GET", `/tasks/${t.body.id}/environment`)).body;
    expect(env.repositories.every((x: { status: string }) => x.status === "deleted")).toBe(true);
  });

  it("LC-1: POST /environment/restore is refused while the task is archived", async () => {
    srv = await startTestServer(kind);
    const repo = await makeRepo();
    cleanups.push(repo.cleanup);
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    const t = await srv.api("POST", "/tasks", { title: "Archived restore", repositories: [{ repositoryId: r.body.id }] });
    await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    const archive = await srv.api("POST", `/tasks/${t.body.id}/archive`);
    await waitFor(
      async () =>
        ((await srv!.api("GET", `/cleanup-jobs?taskId=${t.body.id}`)).body as { id: string; state: string }[]).some(
          (j) => j.id === archive.body.jobId && j.state === "succeeded",
        ),
      "the archive",
    );
    const res = await srv.api("POST", `/tasks/${t.body.id}/environment/restore`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("task_archived");
  });
});
