import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { waitForSession } from "../fixture/server.js";
import { launchBrowser, openPage } from "../e2e/ui-harness.js";
import { ensureBridge } from "./bridges.js";
import { contentText, FakeAnthropic, type SeenRequest } from "./fake-anthropic.js";
import { agentNetworkEnv, InteropServer, RefusingProxy, setEnv } from "./harness.js";

/**
 * USE-1 with the real Claude Code ACP bridge against the fake Anthropic API, whose answers report
 * known token counts: what Grove records for the session, the task, the day and the agent profile
 * equals the fake's sums exactly, and the Usage page shows them; the cost is the bridge's own (`usage_update.cost`), not estimated.
 */
const fake = new FakeAnthropic(() => ({ text: "counted" }));
const proxy = new RefusingProxy();
let restoreEnv = () => undefined as void;
let agentHome = "";

beforeAll(async () => {
  await ensureBridge("claude");
  await fake.start();
  await proxy.start();
  agentHome = mkdtempSync(join(tmpdir(), "grove-claude-usage-home-"));
  restoreEnv = setEnv({
    HOME: agentHome,
    CLAUDE_CONFIG_DIR: join(agentHome, ".claude"),
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: "sk-ant-fake-key",
    ...agentNetworkEnv("claude", proxy.url),
  });
}, 600_000);

afterAll(async () => {
  restoreEnv();
  await fake.close();
  await proxy.close();
  rmSync(agentHome, { recursive: true, force: true });
});

describe.each(ONE_DATABASE)("USE-1 interop: Claude Code's usage against a fake Anthropic API (%s)", (database) => {
  const server = new InteropServer("claude", { modelUrl: () => fake.url, home: () => agentHome }, database);

  it("USE-1 two turns: session, task, day and agent totals equal the tokens the fake reported; the cost is reported, not estimated", async () => {
    fake.reported.length = 0; // the counts of this database's run only
    try {
      // The person's turns report distinct counts; side requests (titles, and the next-prompt
      // suggestion Claude Code makes on its own after a turn, with the tools offered) none: the
      // bridge reports a turn's tokens only for the person's turns.
      let n = 0;
      const suggestion = (seen: SeenRequest) => contentText(seen.body.messages?.at(-1)?.content).includes("[SUGGESTION MODE");
      fake.usageFor = (seen) =>
        seen.main && !suggestion(seen) ? { input: 1000 + 100 * ++n, output: 20 + n, cacheRead: 5 * n, cacheWrite: 3 } : { input: 0, output: 0 };
      const { sid, taskId, api, url } = await server.launch("Say counted.");
      await waitForSession(api, sid, ["waiting_for_input"], 180_000);
      expect((await api("POST", `/sessions/${sid}/prompt`, { prompt: "Say counted again." })).status).toBe(202);
      await waitForSession(api, sid, ["waiting_for_input"], 180_000);
      const session = (await api("GET", `/sessions/${sid}`)).body;
      expect((await api("GET", "/health")).body.database).toBe(database);
      expect(session.lastTurn.outcome).toBe("completed");
      const sum = (k: "input" | "output" | "cacheRead" | "cacheWrite") => fake.reported.reduce((a, r) => a + (r[k] ?? 0), 0);
      expect(fake.reported.filter((r) => r.input > 0)).toHaveLength(2);
      const tokens = { tokensIn: sum("input"), tokensOut: sum("output"), cacheRead: sum("cacheRead"), cacheWrite: sum("cacheWrite") };
      expect(session.usage).toMatchObject({ ...tokens, currency: "USD", estimated: false });
      expect(session.usage.cost).toBeGreaterThan(0);
      expect(session.usage.contextWindow).toBeGreaterThan(0);
      const day = new Date().toISOString().slice(0, 10);
      for (const [groupBy, key] of [
        ["task", taskId],
        ["day", day],
        ["agent", "claude"],
      ] as const) {
        const rows = (await api("GET", `/usage?groupBy=${groupBy}`)).body.rows;
        expect(rows, groupBy).toEqual([expect.objectContaining({ key, ...tokens, cost: session.usage.cost, estimated: false })]);
      }
      // The page shows the same totals (Chromium): the Usage page's row of the task.
      const browser = await launchBrowser();
      try {
        const { page, pageErrors } = await openPage(browser, `${url}/usage`);
        const row = page.locator(`.usage-table tr[data-task-id="${taskId}"]`);
        await row.waitFor();
        const cells = (await row.locator("td").allTextContents()).map((t) => t.trim());
        expect(cells.slice(1, 3)).toEqual([String(tokens.tokensIn), String(tokens.tokensOut)]);
        expect(pageErrors).toEqual([]);
      } finally {
        await browser.close();
      }
    } finally {
      await server.close();
    }
  }, 400_000);
});
