import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runGrove } from "./run-cli.js";
import { startStubServer, type StubServer } from "./stub-server.js";
import { task } from "./fixtures.js";

// The CLI against a stand-in server: only output format, exit codes and argument handling are
// under test here; the real API is exercised by the server's own scenario tests.
describe("grove CLI output and exit codes (UX-3)", () => {
  let stub: StubServer;
  beforeAll(async () => {
    stub = await startStubServer();
    stub.on("GET /api/v1/tasks", (req) => ({
      body:
        req.query.archived === "true"
          ? [task("task_old", "Old work", { archivedAt: "2026-01-03T00:00:00.000Z" })]
          : [task("task_1", "Fix the login bug", { state: "in_progress" }), task("task_2", "Write docs")],
    }));
    stub.on("GET /api/v1/tasks/task_missing", {
      status: 404,
      body: { error: { code: "not_found", message: "task task_missing not found", details: { id: "task_missing" } } },
    });
    stub.on("GET /api/v1/tasks/task_gateway", { status: 502, raw: "<html>bad gateway</html>" });
  });
  afterAll(() => stub.close());

  it("UX-3 task ls --json prints exactly one JSON document with the API's tasks", async () => {
    const r = await runGrove(["task", "ls", "--json", "--server", stub.url]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { id: string; state: string }[];
    expect(doc.map((t) => [t.id, t.state])).toEqual([
      ["task_1", "in_progress"],
      ["task_2", "todo"],
    ]);
    expect(stub.requests.at(-1)?.query).toEqual({ archived: "false", order: "newest" });
  });

  it("UX-3 global options work before the command too (grove --json --server URL task ls --archived)", async () => {
    const r = await runGrove(["--json", "--server", stub.url, "task", "ls", "--archived"]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { id: string }[]).map((t) => t.id)).toEqual(["task_old"]);
  });

  it("UX-3 task ls prints a compact table: id, state in words (the raw value is --json's), title", async () => {
    const r = await runGrove(["task", "ls", "--server", stub.url]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+STATE\s+TITLE$/);
    expect(lines[1]).toMatch(/^task_1\s+In progress\s+Fix the login bug$/);
    expect(lines[2]).toMatch(/^task_2\s+To do\s+Write docs$/);
  });

  it("UX-3 an API error prints `error: CODE: message` on one stderr line and exits 1", async () => {
    const r = await runGrove(["task", "show", "task_missing", "--server", stub.url]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("error: not_found: task task_missing not found\n");
  });

  it("UX-3 a non-JSON error answer still yields a coded one-line error", async () => {
    const r = await runGrove(["task", "show", "task_gateway", "--server", stub.url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: http_502: GET /api/v1/tasks/task_gateway failed with HTTP 502\n");
  });

  it("UX-3 an unreachable server is reported as server_unreachable", async () => {
    const r = await runGrove(["task", "ls", "--server", "http://127.0.0.1:1"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: server_unreachable: cannot reach the Grove server at http:\/\/127\.0\.0\.1:1 .*\n$/);
  });

  it("UX-3 a usage error is one coded line and exit 1", async () => {
    const r = await runGrove(["task", "create", "--title", "x", "--server", stub.url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: invalid_arguments: missing --repo <repoIdOrName[@baseBranch]>\n");
  });

  it("UX-3 the default server is http://127.0.0.1:$GROVE_PORT", async () => {
    const port = new URL(stub.url).port;
    const r = await runGrove(["task", "ls", "--json"], { env: { GROVE_PORT: port } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
  });

  it("SEC-1 sends Authorization: Bearer $GROVE_AUTH_TOKEN when set, and nothing otherwise", async () => {
    await runGrove(["task", "ls", "--server", stub.url], { env: { GROVE_AUTH_TOKEN: "s3cret" } });
    expect(stub.requests.at(-1)?.headers.authorization).toBe("Bearer s3cret");
    await runGrove(["task", "ls", "--server", stub.url]);
    expect(stub.requests.at(-1)?.headers.authorization).toBeUndefined();
  });
});
