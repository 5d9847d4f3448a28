import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";

describe.each(ONE_DATABASE)("SES-5 permission policy ask (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  async function serverWithAskingAgent(): Promise<TestServer> {
    const db = await freshDatabase(kind);
    mkdirSync(db.home, { recursive: true });
    const { command, args } = scriptedAgentCommand();
    writeFileSync(
      join(db.home, "agents.json"),
      JSON.stringify({
        agents: [{ name: "careful", command, args, env: { GROVE_SCRIPTED_STATE_DIR: join(db.home, "agents", "careful") }, permissionPolicy: "ask" }],
      }),
    );
    return startTestServer(kind, db);
  }

  it("SES-5: a permission request waits for the person; allowing it lets the turn go on", async () => {
    srv = await serverWithAskingAgent();
    const { task } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "careful", prompt: "ask may I write?\nwrite allowed.txt yes" });
    const asks = await waitFor(async () => {
      const r = (await srv!.api("GET", `/sessions/${s.body.id}/permissions`)).body as { requestId: string; options: { optionId: string; kind: string }[] }[];
      return r.length > 0 ? r : undefined;
    }, "a pending permission request");
    expect((await srv.api("GET", `/sessions/${s.body.id}`)).body.state).toBe("running");
    const allow = asks[0]!.options.find((o) => o.kind.startsWith("allow"))!;
    expect((await srv.api("POST", `/sessions/${s.body.id}/permissions/${asks[0]!.requestId}`, { optionId: "nope" })).status).toBe(400);
    expect((await srv.api("POST", `/sessions/${s.body.id}/permissions/${asks[0]!.requestId}`, { optionId: allow.optionId })).status).toBe(204);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    expect(existsSync(join(ws.workspacePath, "allowed.txt"))).toBe(true);
    const msgs = (await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { role: string; text: string }[];
    expect(msgs.some((m) => m.role === "system" && m.text.includes("permission requested"))).toBe(true);
  });

  it("SES-5: rejecting the request stops the script; nothing is written", async () => {
    srv = await serverWithAskingAgent();
    const { task } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "careful", prompt: "ask may I write?\nwrite refused.txt no" });
    const [ask] = await waitFor(async () => {
      const r = (await srv!.api("GET", `/sessions/${s.body.id}/permissions`)).body as { requestId: string }[];
      return r.length > 0 ? r : undefined;
    }, "a pending permission request");
    expect((await srv.api("POST", `/sessions/${s.body.id}/permissions/${ask!.requestId}`, { optionId: null })).status).toBe(204);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    expect(existsSync(join(ws.workspacePath, "refused.txt"))).toBe(false);
    expect((await srv.api("GET", `/sessions/${s.body.id}/permissions`)).body).toEqual([]);
  });

  it("SES-5: cancel answers a pending request and ends the turn", async () => {
    srv = await serverWithAskingAgent();
    const { task } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "careful", prompt: "ask may I?\nwrite never.txt no" });
    await waitFor(async () => ((await srv!.api("GET", `/sessions/${s.body.id}/permissions`)).body as unknown[]).length > 0, "a pending request");
    expect((await srv.api("POST", `/sessions/${s.body.id}/cancel`)).status).toBe(202);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    expect(existsSync(join(ws.workspacePath, "never.txt"))).toBe(false);
    expect((await srv.api("GET", `/sessions/${s.body.id}/permissions`)).body).toEqual([]);
  });
});
