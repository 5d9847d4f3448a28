import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { runGrove } from "./run-cli.js";

// LIVE-2 with the bundled CLI: a refused turn is a failure in `--wait`, `session ls` and `session show`.
describe("LIVE-2 grove shows how a turn ended", () => {
  let srv: TestServer;
  let repo: TestRepo;
  let taskId: string;
  let sessionId: string;
  const grove = (...args: string[]) => runGrove([...args, "--server", srv.url]);

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
    repo = await makeRepo({ name: "outcomes" });
    expect((await grove("repo", "add", repo.path)).code).toBe(0);
    taskId = (await grove("task", "create", "--title", "Refuses", "--repo", "outcomes", "--quiet")).stdout.trim();
  });
  afterAll(async () => {
    await srv?.close();
    await repo?.cleanup();
  });

  it("LIVE-2 task start --wait exits 1 on a refused turn, naming the agent's reason", async () => {
    const r = await grove("task", "start", taskId, "--prompt", "fail the tests are not mine to change", "--wait");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: turn_failed: the turn of session ses_\S+ ended with refusal: the tests are not mine to change$/m);
    sessionId = /session (ses_[A-Za-z0-9_-]+)/.exec(r.stderr)![1]!;
  });

  it("LIVE-2 CLI-17 session ls shows LAST TURN Refused and the reason as LAST ERROR, in words; --json carries the raw state and lastTurn", async () => {
    const ls = await grove("session", "ls", taskId);
    expect(ls.code).toBe(0);
    const [header, row] = ls.stdout.split("\n");
    expect(header).toMatch(/^ID\s+AGENT\s+STATE\s+LAST TURN\s+UPDATED\s+LAST ERROR$/);
    expect(row).toMatch(new RegExp(`^${sessionId}\\s+scripted\\s+Waiting for you\\s+Refused\\s+.*\\s{2}Turn refused: the tests are not mine to change$`));
    expect(ls.stdout).not.toMatch(/waiting_for_input|turn_refused/);
    const json = JSON.parse((await grove("session", "ls", taskId, "--json")).stdout) as {
      state: string;
      lastTurn: { outcome: string; reason: string };
      lastError: { code: string };
    }[];
    expect(json[0]).toMatchObject({ state: "waiting_for_input", lastError: { code: "turn_refused" } });
    expect(json[0]!.lastTurn).toMatchObject({ outcome: "refused", reason: "the tests are not mine to change" });
  });

  it("LIVE-2 session show prints the last turn's outcome; a good turn then exits 0 and shows completed", async () => {
    expect((await grove("session", "show", sessionId)).stdout).toContain("last turn: Refused: the tests are not mine to change");
    const ok = await grove("session", "prompt", sessionId, "say done", "--wait");
    expect(ok.code).toBe(0);
    const shown = (await grove("session", "show", sessionId)).stdout;
    expect(shown).toContain("last turn: Completed");
    expect(shown).toContain("last error: none");
    // CLI-17: --json keeps the raw values the words stand for.
    const doc = JSON.parse((await grove("session", "show", sessionId, "--json")).stdout) as { session: { state: string; lastTurn: { outcome: string } } };
    expect(doc.session).toMatchObject({ state: "waiting_for_input", lastTurn: { outcome: "completed" } });
  });
});
