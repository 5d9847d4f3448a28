import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { realpathSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGrove } from "./run-cli.js";
import { startStubServer, type StubServer } from "./stub-server.js";
import { message, repository, session, task } from "./fixtures.js";

// Argument handling of the resource commands against a stand-in server (see cli-output.test.ts).
describe("grove CLI commands (UX-3)", () => {
  let stub: StubServer;
  let cwd: string;
  let polls = 0;
  beforeAll(async () => {
    cwd = realpathSync(await mkdtemp(join(tmpdir(), "grove-cli-")));
    stub = await startStubServer();
    stub.on("GET /api/v1/repositories", { body: [repository("repo_1", "app"), repository("repo_2", "lib@v2"), repository("repo_3", "docs")] });
    stub.on("POST /api/v1/repositories", (req) => ({ status: 201, body: repository("repo_new", "added", req.body as object) }));
    stub.on("POST /api/v1/tasks", (req) => ({ status: 201, body: task("task_9", (req.body as { title: string }).title) }));
    stub.on("GET /api/v1/tasks/task_1", { body: task("task_1", "T") });
    stub.on("GET /api/v1/agents", { body: [{ name: "scripted", command: "node", args: [], env: [], permissionPolicy: "auto_approve", builtIn: true }] });
    stub.on("GET /api/v1/tasks/task_1/environment", { status: 404, body: { error: { code: "not_found", message: "no environment" } } });
    stub.on("GET /api/v1/sessions/ses_1/messages", { body: [message("m1", "user", "say hi"), message("m2", "agent", "hi")] });
    stub.on("POST /api/v1/tasks/task_1/sessions", { status: 201, body: session("ses_1", { state: "starting" }) });
    stub.on("GET /api/v1/sessions/ses_1", () => ({ body: session("ses_1", { state: ++polls < 2 ? "running" : "waiting_for_input" }) }));
    stub.on("GET /api/v1/sessions/ses_2", {
      body: session("ses_2", { state: "failed", lastError: { code: "agent_crashed", message: "exit code 3", at: "2026-01-02T03:04:05.000Z" } }),
    });
    stub.on("GET /api/v1/sessions/ses_2/messages", { body: [message("m1", "user", "crash 3"), message("m2", "agent", "ok: hello")] });
    stub.on("POST /api/v1/sessions/ses_2/prompt", { status: 202 });
    stub.on("DELETE /api/v1/tasks/task_1", { status: 202, body: { jobId: "job_1" } });
  });
  afterAll(async () => {
    await stub.close();
    await rm(cwd, { recursive: true, force: true });
  });

  const lastBody = () => stub.requests.at(-1)?.body;

  it("UX-3 repo add resolves a relative path against the caller's cwd", async () => {
    const r = await runGrove(["repo", "add", "work/app", "--name", "app2", "--no-pull-before-worktree", "--server", stub.url], { cwd });
    expect(r.code).toBe(0);
    expect(lastBody()).toEqual({ path: join(cwd, "work/app"), name: "app2", pullBeforeWorktree: false });
    expect(r.stdout).toMatch(/^added repository /);
  });

  it("UX-3 repo add sends a remote URL as url, with provider", async () => {
    const r = await runGrove([
      "repo",
      "add",
      "git@gitlab.example.com:team/app.git",
      "--provider",
      "gitlab",
      "--default-branch",
      "dev",
      "--json",
      "--server",
      stub.url,
    ]);
    expect(r.code).toBe(0);
    expect(lastBody()).toEqual({ url: "git@gitlab.example.com:team/app.git", provider: "gitlab", defaultBranch: "dev" });
    expect(JSON.parse(r.stdout)).toMatchObject({ id: "repo_new" });
  });

  it("UX-3 task create --repo name@branch resolves names (also names containing @) and ids", async () => {
    const r = await runGrove([
      "task",
      "create",
      "--title",
      "T",
      "--description",
      "D",
      "--repo",
      "app@feature/x",
      "--repo",
      "lib@v2",
      "--repo",
      "repo_3@release@1",
      "--pr",
      "7",
      "--server",
      stub.url,
    ]);
    expect(r.code).toBe(0);
    expect(lastBody()).toEqual({
      title: "T",
      description: "D",
      repositories: [
        { repositoryId: "repo_1", baseBranch: "feature/x", prNumber: 7 },
        { repositoryId: "repo_2" },
        { repositoryId: "repo_3", baseBranch: "release@1" },
      ],
    });
    expect(r.stdout).toBe("created task task_9: T\n");
  });

  it("UX-3 task create with an unknown repository fails before creating anything", async () => {
    const before = stub.requests.length;
    const r = await runGrove(["task", "create", "--title", "T", "--repo", "nope@main", "--server", stub.url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: not_found: no repository with id or name "nope@main" (see `grove repo ls`)\n');
    expect(stub.requests.slice(before).map((q) => q.method)).toEqual(["GET"]);
  });

  it("UX-3 task start shows progress on stderr and, with --wait, ends on the settled session", async () => {
    const r = await runGrove(["task", "start", "task_1", "--agent", "scripted", "--prompt", "say hi", "--wait", "--json", "--server", stub.url]);
    expect(r.code).toBe(0);
    const posted = stub.requests.find((q) => q.method === "POST" && q.path === "/api/v1/tasks/task_1/sessions");
    expect(posted?.body).toEqual({ agent: "scripted", prompt: "say hi" });
    expect(r.stderr).toContain("materializing workspace…\nsession ses_1: Starting\n");
    // CLI-17: progress says states in words; the --json result keeps the raw state.
    expect(r.stderr).toContain("session ses_1: Waiting for you");
    expect(r.stderr).not.toContain("waiting_for_input");
    expect(JSON.parse(r.stdout)).toMatchObject({ id: "ses_1", state: "waiting_for_input" });
  });

  it("UX-3 CLI-17 session show prints the state and last error in words and the messages as role: text", async () => {
    const r = await runGrove(["session", "show", "ses_2", "--server", stub.url]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toContain("state: Failed");
    expect(lines).toContain("last error: agent crashed: exit code 3");
    expect(lines.slice(-2)).toEqual(["user: crash 3", "agent: ok: hello"]);
    const json = await runGrove(["session", "show", "ses_2", "--json", "--server", stub.url]);
    expect(JSON.parse(json.stdout)).toMatchObject({ session: { id: "ses_2", state: "failed" }, messages: [{ id: "m1" }, { id: "m2" }] });
  });

  it("UX-3 a bodiless 202 still prints one JSON document", async () => {
    const r = await runGrove(["session", "prompt", "ses_2", "commit wip", "--json", "--server", stub.url]);
    expect(r.code).toBe(0);
    expect(lastBody()).toEqual({ prompt: "commit wip" });
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, sessionId: "ses_2", action: "prompt" });
  });

  it("UX-3 task rm --discard-changes passes the consent as a query flag", async () => {
    const r = await runGrove(["task", "rm", "task_1", "--discard-changes", "--server", stub.url]);
    expect(r.code).toBe(0);
    expect(stub.requests.at(-1)).toMatchObject({ method: "DELETE", query: { discardChanges: "true" } });
    expect(r.stdout).toBe("deleting task task_1 (cleanup job job_1)\n");
  });

  it("UX-3 doctor on a server without the endpoint explains itself", async () => {
    const r = await runGrove(["doctor", "--server", stub.url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: not_supported: this server has no doctor endpoint .*\n$/);
  });
});
