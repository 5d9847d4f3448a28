import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { waitForSession } from "../fixture/server.js";
import { launchBrowser, openPage } from "../e2e/ui-harness.js";
import { ensureBridge } from "./bridges.js";
import { FakeGemini } from "./fake-gemini.js";
import { agentNetworkEnv, InteropServer, RefusingProxy, setEnv } from "./harness.js";

/**
 * USE-1 with the real Gemini CLI (ACP mode) against the fake Gemini API, whose answers report
 * known token counts: Gemini CLI reports a turn's tokens in the prompt response's
 * `_meta.quota.token_count` and no cost, so Grove's totals equal the fake's sums exactly and the
 * cost is estimated from the price table; the Usage page shows them (Chromium).
 */
const fake = new FakeGemini(() => ({ text: "counted" }));
const proxy = new RefusingProxy();
let restoreEnv = () => undefined as void;
let agentHome = "";

beforeAll(async () => {
  await ensureBridge("gemini");
  await fake.start();
  await proxy.start();
  agentHome = mkdtempSync(join(tmpdir(), "grove-gemini-usage-home-"));
  mkdirSync(join(agentHome, ".gemini"));
  writeFileSync(join(agentHome, ".gemini", "settings.json"), JSON.stringify({ privacy: { usageStatisticsEnabled: false } }));
  restoreEnv = setEnv({ HOME: agentHome, GOOGLE_GEMINI_BASE_URL: fake.url, GEMINI_API_KEY: "fake-gemini-key", ...agentNetworkEnv("gemini", proxy.url) });
}, 600_000);

afterAll(async () => {
  restoreEnv();
  await fake.close();
  await proxy.close();
  rmSync(agentHome, { recursive: true, force: true });
});

describe.each(ONE_DATABASE)("USE-1 interop: Gemini CLI's usage against a fake Gemini API (%s)", (database) => {
  const server = new InteropServer("gemini", { modelUrl: () => fake.url, home: () => agentHome }, database);

  it("USE-1 two turns: session, task, day and agent totals equal the tokens the fake reported; the cost is estimated", async () => {
    fake.reported.length = 0; // the counts of this database's run only
    try {
      // The main conversation's answers report distinct counts; side requests (router, next speaker) none.
      let n = 0;
      fake.usageFor = (seen) => (seen.main ? { input: 2000 + 100 * ++n, output: 30 + n } : { input: 0, output: 0 });
      const { sid, taskId, api, url } = await server.launch("Say counted.");
      await waitForSession(api, sid, ["waiting_for_input"], 180_000);
      expect((await api("POST", `/sessions/${sid}/prompt`, { prompt: "Say counted again." })).status).toBe(202);
      await waitForSession(api, sid, ["waiting_for_input"], 180_000);
      const session = (await api("GET", `/sessions/${sid}`)).body;
      expect((await api("GET", "/health")).body.database).toBe(database);
      expect(session.lastTurn.outcome).toBe("completed");
      expect(fake.reported.filter((r) => r.input > 0).length).toBeGreaterThanOrEqual(2);
      const tokens = { tokensIn: fake.reported.reduce((a, r) => a + r.input, 0), tokensOut: fake.reported.reduce((a, r) => a + r.output, 0) };
      expect(session.usage).toMatchObject({ ...tokens, estimated: true });
      expect(session.usage.cost).toBeGreaterThan(0);
      const day = new Date().toISOString().slice(0, 10);
      for (const [groupBy, key] of [
        ["task", taskId],
        ["day", day],
        ["agent", "gemini"],
      ] as const) {
        const rows = (await api("GET", `/usage?groupBy=${groupBy}`)).body.rows;
        expect(rows, groupBy).toEqual([expect.objectContaining({ key, ...tokens, cost: session.usage.cost, estimated: true })]);
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
