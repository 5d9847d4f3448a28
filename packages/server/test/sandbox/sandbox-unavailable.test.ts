import { writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { runGrove } from "../cli/run-cli.js";
import { repoAndTask } from "../fixture/scenario.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { runResults, turn } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

/** A real (not the built-in scripted) agent: the scripted program under a profile of its own. */
function agentsJson(home: string, extra: Record<string, unknown>[] = []): void {
  const s = scriptedAgentCommand();
  const profile = (name: string, more: Record<string, unknown> = {}) => ({
    name,
    command: s.command,
    args: s.args,
    env: { GROVE_SCRIPTED_STATE_DIR: join(home, "agents", name) },
    permissionPolicy: "auto_approve",
    ...more,
  });
  writeFileSync(join(home, "agents.json"), JSON.stringify({ agents: [profile("mine"), profile("loose", { sandbox: "off" }), ...extra] }));
}

describe.each(ONE_DATABASE)("SBX-3 no sandbox, no real agent; unconfined sessions are marked (%s)", (kind) => {
  const cleanups = cleanupsAfterEach();

  async function server(env: Record<string, string>): Promise<TestServer> {
    const db = await freshDatabase(kind);
    agentsJson(db.home);
    const srv = await startTestServer(kind, db, env);
    cleanups.push(async () => {
      await srv.close();
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    return srv;
  }

  it("SBX-3: with GROVE_BWRAP pointing nowhere a real agent is refused with 409 sandbox_unavailable naming the fix, and nothing is created", async () => {
    const srv = await server({ GROVE_BWRAP: "/nonexistent/bwrap" });
    const { repo, task } = await repoAndTask(srv);
    cleanups.push(() => repo.cleanup());
    const r = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "mine", prompt: "say hi" });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("sandbox_unavailable");
    expect(r.body.error.details.fix).toMatch(/bubblewrap/);
    expect(r.body.error.details.fix).toMatch(/"sandbox": "off"/);
    expect(r.body.error.message).toContain("/nonexistent/bwrap");
    expect((await srv.api("GET", `/tasks/${task.id}/sessions`)).body).toEqual([]);
    expect((await srv.api("GET", `/tasks/${task.id}/environment`)).status).toBe(404);
    // The CLI shows the same refusal with its fix.
    const cli = await runGrove(["task", "start", task.id, "--agent", "mine", "--server", srv.url]);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain("sandbox_unavailable");
  });

  it("SBX-3: without a sandbox the scripted agent still runs, unconfined and marked; a profile with sandbox off runs unconfined where bwrap works", async () => {
    const srv = await server({ GROVE_BWRAP: "/nonexistent/bwrap" });
    const { repo, task } = await repoAndTask(srv);
    cleanups.push(() => repo.cleanup());
    const r = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "scripted" });
    expect(r.status).toBe(201);
    expect(r.body.sandbox).toBe("unconfined");
    await waitForSession(srv.api, r.body.id, ["waiting_for_input"]);
    const ls = await runGrove(["session", "ls", task.id, "--server", srv.url]);
    expect(ls.stdout).toMatch(new RegExp(`${r.body.id}\\s+scripted \\(unconfined\\)`));
    const show = await runGrove(["session", "show", r.body.id, "--server", srv.url]);
    expect(show.stdout).toContain("sandbox: unconfined");

    const withBwrap = await server({});
    const t2 = await repoAndTask(withBwrap, { title: "other" });
    cleanups.push(() => t2.repo.cleanup());
    const loose = await withBwrap.api("POST", `/tasks/${t2.task.id}/sessions`, { agent: "loose" });
    expect(loose.status).toBe(201);
    expect(loose.body.sandbox).toBe("unconfined");
    await waitForSession(withBwrap.api, loose.body.id, ["waiting_for_input"]);
    // Unconfined really is unconfined: the server's GROVE_HOME is in view (what the badge warns of).
    const seen = runResults(await turn(withBwrap, loose.body.id, `run ls ${withBwrap.home}`));
    expect(seen[0]).toMatchObject({ code: 0 });
    expect(seen[0]!.output).toContain("tasks");
    const confined = await withBwrap.api("POST", `/tasks/${t2.task.id}/sessions`, { agent: "mine" });
    expect(confined.status).toBe(201);
    expect(confined.body.sandbox).toBe("confined");
    await waitForSession(withBwrap.api, confined.body.id, ["waiting_for_input"]);
    const hidden = runResults(await turn(withBwrap, confined.body.id, `run ls ${withBwrap.home}`));
    expect(hidden[0]!.output).not.toContain("grove.db");
  });
});
