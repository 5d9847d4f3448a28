import { describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import { waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { inProcessRunner, sharedDatabase } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

type Profile = { name: string; permissionPolicy: string; sandbox: string };
const scripted = async (r: TestServer) => ((await r.api("GET", "/agents")).body as Profile[]).find((p) => p.name === "scripted")!;

/** Starts a session of the scripted agent on `r` and answers its permission request when it asks; says whether it asked. */
async function askingSession(r: TestServer, taskId: string): Promise<{ asked: boolean; sandbox: string }> {
  const s = await r.api("POST", `/tasks/${taskId}/sessions`, { prompt: "ask may I write?\nsay went on" });
  expect(s.status).toBe(201);
  let asked = false;
  await waitFor(async () => {
    const [ask] = (await r.api("GET", `/sessions/${s.body.id}/permissions`)).body as { requestId: string; options: { optionId: string; kind: string }[] }[];
    if (ask) {
      asked = true;
      const allow = ask.options.find((o) => o.kind === "allow_once")!;
      await r.api("POST", `/sessions/${s.body.id}/permissions/${ask.requestId}`, { optionId: allow.optionId });
    }
    return (await r.api("GET", `/sessions/${s.body.id}`)).body.state === "waiting_for_input";
  }, "the session's turn to end");
  const done = await waitForSession(r.api, s.body.id, ["waiting_for_input"]);
  return { asked, sandbox: done.sandbox as string };
}

// PostgreSQL only: several runners share one database only there.
describe("WEB-44 settings reach every runner of a shared database without a restart (PostgreSQL)", { timeout: 240_000 }, () => {
  const cleanups = cleanupsAfterEach();

  it("WEB-44 an agent profile's policy and sandbox changed on runner A hold for the next session started on runner B; the editor command too", async () => {
    const { databaseUrl } = await sharedDatabase(cleanups);
    const a = await inProcessRunner(cleanups, databaseUrl, "runner_a");
    const b = await inProcessRunner(cleanups, databaseUrl, "runner_b");
    // A local path is held by the runner that registered it: the task's agents run on B.
    const repo = (await b.api("POST", "/repositories", { path: (await makeRepo({ name: "everywhere" })).path })).body;
    const task = (await b.api("POST", "/tasks", { title: "Set on A, used on B", repositories: [{ repositoryId: repo.id }] })).body;
    expect(await scripted(b)).toMatchObject({ permissionPolicy: "auto_approve", sandbox: "confined" });

    expect((await a.api("PATCH", "/agents/scripted", { permissionPolicy: "ask", sandbox: "off" })).status).toBe(200);
    expect(await scripted(b)).toMatchObject({ permissionPolicy: "ask", sandbox: "off" });
    expect(await askingSession(b, task.id)).toEqual({ asked: true, sandbox: "unconfined" });
    expect((await b.api("GET", `/tasks/${task.id}`)).body.runnerId).toBe("runner_b");

    // Back through A: B's next session runs confined again and does not ask.
    expect((await a.api("PATCH", "/agents/scripted", { permissionPolicy: "auto_approve", sandbox: "confined" })).status).toBe(200);
    expect(await scripted(b)).toMatchObject({ permissionPolicy: "auto_approve", sandbox: "confined" });
    expect(await askingSession(b, task.id)).toEqual({ asked: false, sandbox: "confined" });

    // The editor command set on A is B's for Open in editor; cleared on A, B has none.
    expect((await b.api("POST", `/tasks/${task.id}/open-in-editor`, { repositoryId: repo.id })).body.error.code).toBe("editor_not_configured");
    expect((await a.api("PUT", "/settings/editor", { command: "true" })).status).toBe(200);
    expect((await b.api("GET", "/settings/editor")).body).toEqual({ command: "true", source: "person" });
    expect((await b.api("POST", `/tasks/${task.id}/open-in-editor`, { repositoryId: repo.id })).status).toBe(202);
    expect((await a.api("DELETE", "/settings/editor")).status).toBe(200);
    expect((await b.api("POST", `/tasks/${task.id}/open-in-editor`, { repositoryId: repo.id })).body.error.code).toBe("editor_not_configured");
  });
});
