import { afterEach, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { apiClient, startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";

type Profile = { name: string; permissionPolicy: string; sandbox?: string };
const profile = async (srv: TestServer, name: string) => ((await srv.api("GET", "/agents")).body as Profile[]).find((p) => p.name === name);

describe.each(ONE_DATABASE)("WEB-44 agent profiles and the editor command set through the API (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  it("WEB-44 PATCH /agents/:name and PUT /settings/editor validate, persist across a restart, and hold without one", { timeout: 120_000 }, async () => {
    srv = await startTestServer(kind);
    const api = srv.api;
    const before = await profile(srv, "scripted");
    expect(before?.permissionPolicy).toBe("auto_approve");

    // Refusals name the field and change nothing.
    const bad = await api("PATCH", "/agents/scripted", { permissionPolicy: "sometimes" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_request", details: { field: "permissionPolicy" } });
    expect((await api("PATCH", "/agents/scripted", {})).status).toBe(400);
    expect((await api("PATCH", "/agents/scripted", { colour: "red" })).status).toBe(400);
    const unknown = await api("PATCH", "/agents/nobody", { permissionPolicy: "ask" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    expect(await profile(srv, "scripted")).toEqual(before);
    // SBX-5: a process without the person's token (an agent) changes neither.
    const stranger = apiClient(srv.url, { home: "/nonexistent" });
    expect((await stranger("PATCH", "/agents/scripted", { permissionPolicy: "ask" })).body.error.code).toBe("person_required");
    expect((await stranger("PUT", "/settings/editor", { command: "true" })).body.error.code).toBe("person_required");

    // The scripted agent asks from its next session on, no restart.
    const asked = await api("PATCH", "/agents/scripted", { permissionPolicy: "ask" });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ name: "scripted", permissionPolicy: "ask" });
    const repo = (await api("POST", "/repositories", { path: (await makeRepo({ name: "settings" })).path })).body;
    const task = (await api("POST", "/tasks", { title: "Asks now", repositories: [{ repositoryId: repo.id }] })).body;
    const s = (await api("POST", `/tasks/${task.id}/sessions`, { prompt: "ask may I write?\nsay went on" })).body;
    const [ask] = await waitFor(async () => {
      const list = (await api("GET", `/sessions/${s.id}/permissions`)).body as { requestId: string; options: { optionId: string; kind: string }[] }[];
      return list.length > 0 ? list : undefined;
    }, "the permission request");
    const allow = ask!.options.find((o) => o.kind === "allow_once")!;
    expect((await api("POST", `/sessions/${s.id}/permissions/${ask!.requestId}`, { optionId: allow.optionId })).status).toBeLessThan(300);
    await waitForSession(api, s.id, ["waiting_for_input"]);

    // Sandbox: off, then confined again.
    expect((await api("PATCH", "/agents/claude", { sandbox: "off" })).body.sandbox).toBe("off");
    expect((await api("PATCH", "/agents/claude", { sandbox: "confined" })).body.sandbox).toBe("confined");
    expect((await api("PATCH", "/agents/claude", { sandbox: "off" })).body.sandbox).toBe("off");
    expect((await api("PATCH", "/agents/claude", { sandbox: "sometimes" })).body.error.details.field).toBe("sandbox");

    // The editor: none, refusals, then the person's command, used by Open in editor at once.
    expect((await api("GET", "/settings/editor")).body).toEqual({ command: null, source: "none" });
    const env = (await api("GET", `/tasks/${task.id}/environment`)).body as { repositories: { repositoryId: string }[] };
    expect((await api("POST", `/tasks/${task.id}/open-in-editor`, { repositoryId: repo.id })).body.error.code).toBe("editor_not_configured");
    const blank = await api("PUT", "/settings/editor", { command: "   " });
    expect(blank.status).toBe(400);
    expect(blank.body.error).toMatchObject({ code: "invalid_request", details: { field: "command" } });
    expect((await api("PUT", "/settings/editor", { command: "code\n--wait" })).status).toBe(400);
    expect((await api("GET", "/settings/editor")).body).toEqual({ command: null, source: "none" });
    expect((await api("PUT", "/settings/editor", { command: " true " })).body).toEqual({ command: "true", source: "person" });
    expect(env.repositories).toHaveLength(1);
    expect((await api("POST", `/tasks/${task.id}/open-in-editor`, { repositoryId: repo.id })).status).toBe(202);

    // Kept in the database: the same after a restart.
    await srv.stop();
    srv = await startTestServer(kind, { home: srv.home, databaseUrl: srv.databaseUrl });
    expect((await profile(srv, "scripted"))?.permissionPolicy).toBe("ask");
    expect((await profile(srv, "claude"))?.sandbox).toBe("off");
    expect((await srv.api("GET", "/settings/editor")).body).toEqual({ command: "true", source: "person" });
    expect((await srv.api("DELETE", "/settings/editor")).body).toEqual({ command: null, source: "none" });
  });
});
