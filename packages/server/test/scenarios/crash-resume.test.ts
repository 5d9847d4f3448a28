import { describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { waitFor, waitForSession, serverPerFile } from "../fixture/server.js";

describe.each(DATABASES)("agent crashes, cancel and resume (%s)", (kind) => {
  // Each test makes its own repository and task: one server serves them all.
  const perFile = serverPerFile(kind);

  it("SES-8 SES-1: an agent that dies mid-turn → failed with a durable lastError; prompt is refused until an explicit resume", async () => {
    const srv = await perFile.start();
    const { task } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write before.txt kept\ncrash 3" });
    const failed = await waitForSession(srv.api, s.body.id, ["failed"]);
    expect(failed.lastError).toMatchObject({ code: "agent_crashed" });
    expect(failed.lastError.at).toMatch(/^\d{4}-/);
    // The task state is derived right after the session's own write: wait for it, don't race it.
    await waitFor(async () => (await srv.api("GET", `/tasks/${task.id}`)).body.state === "failed", "the task to be failed");
    const refused = await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say hi" });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("session_not_resumable");

    const resumed = await srv.api("POST", `/sessions/${s.body.id}/resume`);
    expect(resumed.status).toBe(202);
    expect(resumed.body.state).toBe("waiting_for_input");
    expect(resumed.body.lastError).toBeNull();
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "read before.txt" })).status).toBe(202);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const msgs = (await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { role: string; text: string }[];
    expect(
      msgs
        .filter((m) => m.role === "agent")
        .map((m) => m.text)
        .join("\n"),
    ).toContain("kept");
  });

  it("SES-1: a second prompt while a turn runs → 409 session_busy; cancel ends the turn and the session waits again", async () => {
    const srv = await perFile.start();
    const { task } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say start\nsleep 30000\nwrite late.txt never" });
    await waitFor(
      async () => ((await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { role: string }[]).some((m) => m.role === "agent"),
      "the turn to start",
    );
    const busy = await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say again" });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe("session_busy");
    const del = await srv.api("DELETE", `/sessions/${s.body.id}`);
    expect(del.status).toBe(409);
    expect(del.body.error.code).toBe("session_running");
    expect((await srv.api("POST", `/sessions/${s.body.id}/cancel`)).status).toBe(202);
    const after = await waitForSession(srv.api, s.body.id, ["waiting_for_input"], 10_000);
    expect(after.lastError).toBeNull();
    const msgs = (await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { role: string; text: string }[];
    expect(msgs.some((m) => m.role === "system" && m.text === "turn cancelled")).toBe(true);
  });

  it("SES-6: an agent that exits while idle is relaunched by the next prompt with session/load", async () => {
    const srv = await perFile.start();
    const { task } = await repoAndTask(srv);
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say first" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const pid = srv.server.deps.agents.get(s.body.id)?.pid;
    expect(pid).toBeTypeOf("number");
    process.kill(-pid!, "SIGKILL");
    await waitFor(() => srv.server.deps.agents.get(s.body.id) === undefined, "the runtime to notice the exit");
    expect((await srv.api("GET", `/sessions/${s.body.id}`)).body.state).toBe("waiting_for_input");
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: "say second" })).status).toBe(202);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const newPid = srv.server.deps.agents.get(s.body.id)?.pid;
    expect(newPid).toBeTypeOf("number");
    expect(newPid).not.toBe(pid);
    expect(srv.server.deps.agents.get(s.body.id)?.resumed).toBe(true);
  });
});
