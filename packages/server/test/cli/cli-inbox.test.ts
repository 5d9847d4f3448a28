import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { startTestServer, waitFor, type TestServer } from "../fixture/server.js";
import { runGrove } from "./run-cli.js";

// LIVE-4 with the bundled CLI: `grove inbox` lists the server's durable items; `inbox done` clears one.
describe("LIVE-4 grove inbox", () => {
  let srv: TestServer;
  let repo: TestRepo;
  const grove = (...args: string[]) => runGrove([...args, "--server", srv.url]);

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
    repo = await makeRepo({ name: "inboxed" });
    expect((await grove("repo", "add", repo.path)).code).toBe(0);
    const taskId = (await grove("task", "create", "--title", "Needs a look", "--repo", "inboxed", "--quiet")).stdout.trim();
    expect((await grove("task", "start", taskId, "--prompt", "fail no can do", "--wait")).code).toBe(1);
    await waitFor(async () => ((await srv.api("GET", "/inbox")).body as unknown[]).length > 0, "an inbox item");
  });
  afterAll(async () => {
    await srv?.close();
    await repo?.cleanup();
  });

  it('LIVE-4 LIVE-4.9 grove inbox lists open items (KIND in words: "Turn failed"); --json is the API\'s list; inbox done clears one; --all still shows it', async () => {
    const ls = await grove("inbox");
    expect(ls.code).toBe(0);
    const [header, row] = ls.stdout.split("\n");
    expect(header).toMatch(/^ID\s+KIND\s+CREATED\s+TASK\s+TITLE$/);
    expect(row).toMatch(/^inbox_\S+\s+Turn failed\s+.*Needs a look: turn refused \(no can do\)$/);
    const items = JSON.parse((await grove("inbox", "--json")).stdout) as { id: string; kind: string; state: string }[];
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: "turn_failed", state: "open" });

    const done = await grove("inbox", "done", items[0]!.id);
    expect(done.code).toBe(0);
    expect(done.stdout).toBe("done: Needs a look: turn refused\n");
    expect((await grove("inbox")).stdout).toBe("nothing needs you right now\n");
    expect((await grove("inbox", "--all")).stdout).toMatch(new RegExp(`^${items[0]!.id}\\s+Turn failed\\s+done\\s+`, "m"));

    const missing = await grove("inbox", "done", "inbox_nope");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: not_found: /);
  });
});
