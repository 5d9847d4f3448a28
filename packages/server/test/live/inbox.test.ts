import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { scriptedAgentCommand } from "../../src/agents/profiles.js";
import { DATABASES, freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { openEvents, startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";

type Item = {
  id: string;
  kind: string;
  taskId: string;
  sessionId?: string;
  title: string;
  detail?: string;
  state: string;
  readAt?: string;
  resolvedAt?: string;
};

// LIVE-4: the attention inbox is durable and server-side: raised by the events that need a
// person, shared by every client, kept across restarts, cleared with its cause.
describe.each(DATABASES)("LIVE-4 durable inbox (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  async function serverWithCarefulAgent(): Promise<TestServer> {
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
  const inbox = async (state = "open") => (await srv!.api("GET", `/inbox?state=${state}`)).body as Item[];

  it("LIVE-4 a permission question is an open item (with an inbox.updated frame) until it is answered", async () => {
    srv = await serverWithCarefulAgent();
    const events = await openEvents(srv.url);
    try {
      const { task } = await repoAndTask(srv, { title: "Careful work" });
      const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "careful", prompt: "ask may I write?\nwrite a.txt yes" });
      const [item] = await waitFor(async () => ((await inbox()).length > 0 ? inbox() : undefined), "a permission item");
      expect(item).toMatchObject({ kind: "permission", taskId: task.id, sessionId: s.body.id, state: "open", title: "Careful work: may I write?" });
      expect(events.frames.some((f) => f.type === "inbox.updated" && f.data.item.id === item!.id && f.data.item.state === "open")).toBe(true);
      const [ask] = (await srv.api("GET", `/sessions/${s.body.id}/permissions`)).body as { requestId: string; options: { optionId: string; kind: string }[] }[];
      const allow = ask!.options.find((o) => o.kind.startsWith("allow"))!;
      expect((await srv.api("POST", `/sessions/${s.body.id}/permissions/${ask!.requestId}`, { optionId: allow.optionId })).status).toBe(204);
      await waitFor(async () => !(await inbox()).some((i) => i.id === item!.id), "the permission item to clear");
      const done = (await inbox("all")).find((i) => i.id === item!.id)!;
      expect(done.state).toBe("done");
      expect(done.resolvedAt).toBeTypeOf("string");
      await waitFor(() => events.frames.some((f) => f.type === "inbox.updated" && f.data.item.id === item!.id && f.data.item.state === "done"), "a done frame");
    } finally {
      events.close();
    }
  });

  it("LIVE-4 a failed turn is an item with the reason; it survives a server restart; done (idempotent) and read by API; the next turn resolves a finished-turn item", async () => {
    srv = await startTestServer(kind);
    const { task } = await repoAndTask(srv, { title: "Refusing" });
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "fail not allowed here" });
    const [failed] = await waitFor(async () => ((await inbox()).length > 0 ? inbox() : undefined), "a turn_failed item");
    expect(failed).toMatchObject({ kind: "turn_failed", sessionId: s.body.id, title: "Refusing: turn refused", detail: "not allowed here", state: "open" });

    // A server restart on the same home and database keeps it.
    await srv.stop();
    srv = await startTestServer(kind, { home: srv.home, databaseUrl: srv.databaseUrl });
    expect((await inbox()).map((i) => i.id)).toEqual([failed!.id]);

    const read = await srv.api("POST", `/inbox/${failed!.id}/read`);
    expect(read.status).toBe(200);
    expect(read.body.readAt).toBeTypeOf("string");
    const done = await srv.api("POST", `/inbox/${failed!.id}/done`);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: failed!.id, state: "done" });
    expect((await srv.api("POST", `/inbox/${failed!.id}/done`)).body.resolvedAt).toBe(done.body.resolvedAt);
    expect(await inbox()).toEqual([]);
    expect((await srv.api("POST", "/inbox/inbox_missing/done")).status).toBe(404);
    const bad = await srv.api("GET", "/inbox?state=closed");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_request");

    // A finished turn raises turn_finished; prompting the session again resolves it.
    await srv.api("POST", `/sessions/${s.body.id}/resume`);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say fine" })).status).toBe(202);
    const [finished] = await waitFor(async () => {
      const open = (await inbox()).filter((i) => i.kind === "turn_finished");
      return open.length > 0 ? open : undefined;
    }, "a turn_finished item");
    expect(finished!.title).toBe("Refusing: the agent is waiting for you");
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "sleep 1500" })).status).toBe(202);
    await waitFor(async () => (await inbox("all")).find((i) => i.id === finished!.id)?.state === "done", "the next turn to resolve it");
  });

  it("LIVE-4 an agent crash is its own kind; resuming the session resolves it", async () => {
    srv = await startTestServer(kind);
    const { task } = await repoAndTask(srv, { title: "Crashes" });
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "crash 3" });
    await waitForSession(srv.api, s.body.id, ["failed"]);
    const [item] = await waitFor(async () => ((await inbox()).length > 0 ? inbox() : undefined), "an agent_crashed item");
    expect(item).toMatchObject({ kind: "agent_crashed", sessionId: s.body.id, title: "Crashes: the agent crashed" });
    expect(item!.detail).toMatch(/code 3/);
    // Resume: the session works again, the crash item is resolved.
    await srv.api("POST", `/sessions/${s.body.id}/resume`);
    await waitFor(async () => (await inbox()).length === 0, "the resume to resolve it");
  });
});
