import { rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { startServer } from "../../src/app.js";
import { ConfigError } from "../../src/config.js";
import { loadRunnerConfig } from "../../src/runner-config.js";
import { DATABASES, freshDatabase } from "../fixture/db.js";
import { startTestServer, tempHome } from "../fixture/server.js";
import { runGrove } from "../cli/run-cli.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

describe.each(DATABASES)("runners registry on %s", { timeout: 120_000 }, (kind) => {
  const cleanups = cleanupsAfterEach();

  it("RUN-1 RUN-7: a server registers its runner, a graceful stop shows it offline at once, and `grove runners` prints the registry", async () => {
    const db = await freshDatabase(kind);
    cleanups.push(async () => {
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    const first = await startTestServer(kind, db, { GROVE_RUNNER_ID: "runner_first", GROVE_RUNNER_LABELS: "big" });
    cleanups.push(() => first.stop());
    expect((await first.api("GET", "/runners")).body).toEqual([
      expect.objectContaining({ id: "runner_first", url: first.url, labels: ["big"], maxAgents: null, liveAgents: 0, state: "online" }),
    ]);
    await first.stop();
    const second = await startTestServer(kind, db, { GROVE_RUNNER_ID: "runner_second", GROVE_RUNNER_MAX_AGENTS: "4" });
    cleanups.push(() => second.stop());
    const rows = (await second.api("GET", "/runners")).body as { id: string; state: string }[];
    expect(rows.map((r) => [r.id, r.state])).toEqual([
      ["runner_first", "offline"],
      ["runner_second", "online"],
    ]);

    const human = await runGrove(["runners", "--server", second.url]);
    expect(human.stderr).toBe("");
    expect(human.code).toBe(0);
    const lines = human.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+STATE\s+AGENTS\s+LABELS\s+URL\s+HOST\s+LAST SEEN$/);
    expect(lines[1]).toMatch(/^runner_first\s+offline\s+0\/-\s+big\s+http:\/\/127\.0\.0\.1:\d+\s/);
    expect(lines[2]).toMatch(new RegExp(`^runner_second\\s+online\\s+0/4\\s+-\\s+${second.url.replace(/[.]/g, "\\.")}\\s`));
    const json = await runGrove(["runners", "--json", "--server", second.url]);
    expect((JSON.parse(json.stdout) as { id: string; state: string }[]).map((r) => [r.id, r.state])).toEqual(rows.map((r) => [r.id, r.state]));
  });
});

describe("runner variables are validated at start-up", () => {
  it("RUN-8: bad GROVE_RUNNER_* values stop the start-up with a clear ConfigError; good ones are normalized", async () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ GROVE_RUNNER_HEARTBEAT_MS: "abc" }, /GROVE_RUNNER_HEARTBEAT_MS must be an integer from 50/],
      [{ GROVE_RUNNER_HEARTBEAT_MS: "10" }, /GROVE_RUNNER_HEARTBEAT_MS must be an integer from 50/],
      [{ GROVE_RUNNER_MAX_AGENTS: "0" }, /GROVE_RUNNER_MAX_AGENTS must be an integer from 1/],
      [{ GROVE_RUNNER_MAX_AGENTS: "2.5" }, /GROVE_RUNNER_MAX_AGENTS must be an integer/],
      [{ GROVE_RUNNER_URL: "not a url" }, /GROVE_RUNNER_URL must be an http\(s\) URL/],
      [{ GROVE_RUNNER_URL: "ftp://h/" }, /GROVE_RUNNER_URL must be an http\(s\) URL/],
      [{ GROVE_RUNNER_URL: "http://user:pw@h:1/" }, /plain base URL/],
      [{ GROVE_RUNNER_LABELS: "gpu,has space" }, /GROVE_RUNNER_LABELS: "has space" is not a label/],
      [{ GROVE_CLUSTER_SECRET: "short" }, /GROVE_CLUSTER_SECRET must be at least 16 characters/],
      [{ GROVE_FORWARD_TIMEOUT_MS: "5" }, /GROVE_FORWARD_TIMEOUT_MS must be an integer from 100/],
    ];
    // A refused secret is never echoed back.
    expect(() => loadRunnerConfig({ GROVE_CLUSTER_SECRET: "tooshort-secret" })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("tooshort-secret") }),
    );
    for (const [env, message] of bad) expect(() => loadRunnerConfig(env), JSON.stringify(env)).toThrow(message);
    expect(loadRunnerConfig({})).toEqual({
      url: undefined,
      labels: [],
      maxAgents: null,
      heartbeatMs: 5000,
      clusterSecret: undefined,
      forwardTimeoutMs: 120_000,
    });
    expect(
      loadRunnerConfig({
        GROVE_RUNNER_URL: "https://r1.lan:7420/",
        GROVE_RUNNER_LABELS: " GPU,big,gpu ",
        GROVE_RUNNER_MAX_AGENTS: "2",
        GROVE_RUNNER_HEARTBEAT_MS: "1000",
      }),
    ).toEqual({
      url: "https://r1.lan:7420",
      labels: ["gpu", "big"],
      maxAgents: 2,
      heartbeatMs: 1000,
      clusterSecret: undefined,
      forwardTimeoutMs: 120_000,
    });
    // The server itself refuses to start, before it listens.
    const home = await tempHome();
    try {
      await expect(startServer({ env: { GROVE_HOME: home, GROVE_PORT: "0", GROVE_RUNNER_MAX_AGENTS: "-1" }, quiet: true })).rejects.toBeInstanceOf(ConfigError);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
