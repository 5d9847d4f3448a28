import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { makeRepo, tempDir } from "../fixture/git.js";
import { serverPerTest } from "../fixture/server.js";

describe.each(DATABASES)("SEC-3 bad input leaves nothing behind (%s)", (kind) => {
  // Route-level: every call goes through the server's hooks and routes by inject(), no socket;
  // each test sees an empty server of its own (its assertions read whole lists).
  const perTest = serverPerTest(kind);

  it("SEC-3: repository paths that are not repositories, missing or relative → 400 with a code naming the problem", async () => {
    const srv = await perTest.start();
    const plain = await tempDir("plain-");
    mkdirSync(join(plain, "sub"));
    const cases: [unknown, string][] = [
      [{ path: plain }, "not_a_git_repository"],
      [{ path: join(plain, "does-not-exist") }, "path_not_found"],
      [{ path: "relative/repo" }, "path_not_absolute"],
      [{ path: "--upload-pack=evil" }, "path_not_absolute"],
      [{}, "invalid_request"],
      [{ path: plain, extra: 1 }, "invalid_request"],
    ];
    for (const [body, code] of cases) {
      const r = await srv.inject("POST", "/repositories", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code, JSON.stringify(body)).toBe(code);
    }
    expect((await srv.inject("GET", "/repositories")).body).toEqual([]);
    const subRepo = await makeRepo();
    mkdirSync(join(subRepo.path, "inner"));
    const inner = await srv.inject("POST", "/repositories", { path: join(subRepo.path, "inner") });
    expect(inner.body.error.code).toBe("not_a_git_repository");
  });

  it("SEC-3: empty or 10 KB titles, malformed JSON, bad branches → 400; unknown ids → 404; no task rows, no directories", async () => {
    const srv = await perTest.start();
    const repo = await makeRepo();
    const r = await srv.inject("POST", "/repositories", { path: repo.path });
    expect(r.status).toBe(201);
    const dup = await srv.inject("POST", "/repositories", { path: repo.path });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("repository_exists");
    const id = r.body.id;
    const cases: [unknown, string, string?][] = [
      [{ title: "", repositories: [{ repositoryId: id }] }, "invalid_request", "title"],
      [{ title: "x".repeat(10 * 1024), repositories: [{ repositoryId: id }] }, "invalid_request", "title"],
      [{ title: "ok", repositories: [] }, "invalid_request", "repositories"],
      [{ title: "ok", repositories: [{ repositoryId: "repo_nope" }] }, "invalid_request", "repositories.0.repositoryId"],
      [{ title: "ok", repositories: [{ repositoryId: id, baseBranch: "--orphan" }] }, "invalid_branch_name"],
      [{ title: "ok", repositories: [{ repositoryId: id, baseBranch: "no-such-branch" }] }, "base_branch_not_found"],
      [{ title: "ok", repositories: [{ repositoryId: id, checkoutBranch: "a..b" }] }, "invalid_branch_name"],
    ];
    for (const [body, code, field] of cases) {
      const res = await srv.inject("POST", "/tasks", body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.code).toBe(code);
      if (field) expect(res.body.error.details.field).toBe(field);
    }
    const bad = await srv.inject("POST", "/tasks", undefined, "{not json");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_json");
    expect((await srv.inject("GET", "/tasks")).body).toEqual([]);

    for (const path of ["/tasks/task_nope", "/sessions/ses_nope", "/tasks/task_nope/changes", "/sessions/ses_nope/messages", "/repositories/repo_nope"]) {
      const res = await srv.inject("GET", path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    expect((await srv.inject("POST", "/tasks/task_nope/sessions", {})).status).toBe(404);
    expect((await srv.inject("POST", "/sessions/ses_nope/prompt", { prompt: "x" })).status).toBe(404);

    const t = await srv.inject("POST", "/tasks", { title: "valid", repositories: [{ repositoryId: id }] });
    const unknownAgent = await srv.inject("POST", `/tasks/${t.body.id}/sessions`, { agent: "nobody" });
    expect(unknownAgent.status).toBe(400);
    expect(unknownAgent.body.error.code).toBe("agent_unknown");
    expect((await srv.inject("GET", `/tasks/${t.body.id}/sessions`)).body).toEqual([]);
    expect((await srv.inject("GET", `/tasks/${t.body.id}/environment`)).status).toBe(404);
    expect(existsSync(join(srv.home, "tasks")) ? readdirSync(join(srv.home, "tasks")) : []).toEqual([]);
  });

  it("UX-1: health, agents and the OpenAPI document", async () => {
    const srv = await perTest.start();
    const h = await srv.inject("GET", "/health");
    expect(h.body).toMatchObject({ status: "ok", database: kind });
    expect(h.body.runnerId).toMatch(/^runner_/);
    const agents = (await srv.inject("GET", "/agents")).body as { name: string; env: unknown }[];
    for (const n of ["scripted", "claude", "codex", "gemini", "opencode"]) expect(agents.map((a) => a.name)).toContain(n);
    const doc = (await srv.inject("GET", "/openapi.json")).body;
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/tasks/{id}/sessions");
  });
});
