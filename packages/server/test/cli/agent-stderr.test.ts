import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { startTestServer, waitForSession } from "../fixture/server.js";
import { runGrove } from "./run-cli.js";

/**
 * AG-3: when an agent fails to start, what it wrote on stderr reaches the person: the API error's
 * `details.stderr`, the session's `lastError.stderr`, and the CLI (`agents check`, `session show`).
 */
const AGENT = fileURLToPath(new URL("../agents/env-auth-agent.mjs", import.meta.url));

describe("agent stderr on a failed start (AG-3)", () => {
  it("AG-3 `grove agents check` and `grove session show` print the agent's stderr; the session's lastError keeps it", async () => {
    const db = await freshDatabase("sqlite");
    const said = "fatal: the agent's config file is unreadable";
    writeFileSync(
      join(db.home, "agents.json"),
      JSON.stringify({ agents: [{ name: "broken", command: process.execPath, args: [AGENT], env: { STDERR_AND_EXIT: said } }] }),
    );
    const srv = await startTestServer("sqlite", db);
    try {
      const check = await runGrove(["agents", "check", "broken", "--server", srv.url]);
      expect(check.code).toBe(1);
      expect(check.stderr).toMatch(/^error: agent_start_failed: /);
      expect(check.stderr).toContain(`agent stderr:\n  ${said}`);

      const { task } = await repoAndTask(srv);
      const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "broken", prompt: "hi" });
      expect(s.status).toBe(201);
      const failed = s.body.state === "failed" ? s.body : await waitForSession(srv.api, s.body.id, ["failed"], 30_000);
      expect(failed.lastError.code).toBe("agent_start_failed");
      expect(failed.lastError.stderr).toContain(said);
      const show = await runGrove(["session", "show", s.body.id, "--server", srv.url]);
      expect(show.stdout).toContain(`agent stderr:\n  ${said}`);
    } finally {
      await srv.close();
    }
  }, 60_000);
});
