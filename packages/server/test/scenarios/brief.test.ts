import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runGrove } from "../cli/run-cli.js";
import { ONE_DATABASE } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { serverPerTest, waitForSession, type TestServer } from "../fixture/server.js";

/** A task on a fresh repository with the given description (none: title only). */
const repositories = new Map<string, string>();
async function taskWith(srv: TestServer, description?: string) {
  let repositoryId = repositories.get(srv.url);
  if (repositoryId === undefined) {
    const r = await srv.api("POST", "/repositories", { path: (await makeRepo()).path });
    expect(r.status).toBe(201);
    repositoryId = r.body.id as string;
    repositories.set(srv.url, repositoryId);
  }
  const body: Record<string, unknown> = { title: "Brief the agent", repositories: [{ repositoryId }] };
  if (description !== undefined) body.description = description;
  const t = await srv.api("POST", "/tasks", body);
  expect(t.status).toBe(201);
  return t.body as { id: string };
}

async function userPrompts(srv: TestServer, sessionId: string): Promise<string[]> {
  const msgs = (await srv.api("GET", `/sessions/${sessionId}/messages`)).body as { role: string; text: string }[];
  return msgs.filter((m) => m.role === "user").map((m) => m.text);
}

describe.each(ONE_DATABASE)("BRIEF-1 the brief is the first prompt (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("BRIEF-1: a session started without a prompt receives the title and description, and acts on them", async () => {
    const srv = await perTest.start();
    const task = await taskWith(srv, "write brief.txt from the description\nsay done");
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, {});
    expect(s.status).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect(await userPrompts(srv, s.body.id)).toEqual(["Brief the agent\n\nwrite brief.txt from the description\nsay done"]);
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    expect(readFileSync(join(ws.workspacePath, "brief.txt"), "utf8")).toBe("from the description");
  });

  it("BRIEF-1: an explicit empty prompt starts idle, and so does a task without a description", async () => {
    const srv = await perTest.start();
    const described = await taskWith(srv, "write never.txt x");
    const idle = await srv.api("POST", `/tasks/${described.id}/sessions`, { prompt: "" });
    expect(idle.status, JSON.stringify(idle.body)).toBe(201);
    expect(idle.body.state).toBe("waiting_for_input");
    expect(await userPrompts(srv, idle.body.id)).toEqual([]);
    const ws = (await srv.api("GET", `/sessions/${idle.body.id}/workspace`)).body;
    expect(existsSync(join(ws.workspacePath, "never.txt"))).toBe(false);

    const titled = await taskWith(srv);
    const plain = await srv.api("POST", `/tasks/${titled.id}/sessions`, {});
    expect(plain.status).toBe(201);
    expect(plain.body.state).toBe("waiting_for_input");
    expect(await userPrompts(srv, plain.body.id)).toEqual([]);
  });

  it("BRIEF-1: a given prompt wins over the brief", async () => {
    const srv = await perTest.start();
    const task = await taskWith(srv, "write brief.txt no");
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say mine" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect(await userPrompts(srv, s.body.id)).toEqual(["say mine"]);
  });
});

describe("BRIEF-1 grove task start without --prompt", () => {
  const perTest = serverPerTest("sqlite");

  it("BRIEF-1: grove task start --wait sends the brief; --prompt '' starts idle", async () => {
    const srv = await perTest.start();
    const task = await taskWith(srv, "write cli.txt briefed\nsay done");
    const started = await runGrove(["task", "start", task.id, "--wait", "--quiet", "--server", srv.url]);
    expect(started.code, started.stderr).toBe(0);
    const sessionId = started.stdout.trim();
    expect(await userPrompts(srv, sessionId)).toEqual(["Brief the agent\n\nwrite cli.txt briefed\nsay done"]);
    const ws = (await srv.api("GET", `/sessions/${sessionId}/workspace`)).body;
    expect(readFileSync(join(ws.workspacePath, "cli.txt"), "utf8")).toBe("briefed");

    const idle = await runGrove(["task", "start", task.id, "--prompt", "", "--quiet", "--server", srv.url]);
    expect(idle.code).toBe(0);
    expect(await userPrompts(srv, idle.stdout.trim())).toEqual([]);
  });
});
