import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { serverPerTest, waitFor, waitForSession } from "../fixture/server.js";
import { applyWorkflow, runsOf } from "./helpers.js";

/** Entering In Progress starts an agent; Review does too. Nothing moves the task but people. */
const STARTS = `steps:
  - id: in_progress
    onEnter:
      - action: start_session
        agent: scripted
        prompt: "say entered {{step}}"
  - id: review
    onEnter:
      - action: start_session
        agent: scripted
        prompt: "say reviewing"
`;

describe.each(ONE_DATABASE)("WF-2.21 every recorded move is acted on (%s)", { timeout: 120_000 }, (kind) => {
  const perTest = serverPerTest(kind);

  it("WF-2.21 a move to Review and straight back to In Progress before the engine runs → In Progress's actions run again, Review's none", async () => {
    const srv = await perTest.start();
    const { repo, task } = await repoAndTask(srv, { title: "Back and forth" });
    perTest.track(repo);
    await applyWorkflow(srv, "starts", STARTS);
    const engine = srv.server.orchestrator.workflows.engine;
    const starts = async () => (await runsOf(srv, task.id)).filter((r) => r.action === "start_session");

    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "in_progress" })).status).toBe(200);
    const first = await waitFor(async () => (await starts()).find((r) => r.state === "running" && r.sessionId), "the first start");
    await waitForSession(srv.api, first.sessionId!, ["waiting_for_input"]);

    // The engine is held while a person moves the card to Review and straight back.
    let release!: () => void;
    engine.hold(new Promise<void>((r) => (release = r)));
    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "review" })).status).toBe(200);
    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "in_progress" })).status).toBe(200);
    release();
    await engine.flush();

    const runs = await waitFor(async () => {
      const all = await starts();
      return all.length === 2 && all[1]!.sessionId ? all : undefined;
    }, "the second entry's start");
    expect(runs.map((r) => r.step)).toEqual(["in_progress", "in_progress"]);
    expect(runs[1]!.sessionId).not.toBe(runs[0]!.sessionId);
    await waitForSession(srv.api, runs[1]!.sessionId!, ["waiting_for_input"]);
    const said = (await srv.api("GET", `/sessions/${runs[1]!.sessionId}/messages`)).body as { role: string; text: string }[];
    expect(said.find((m) => m.role === "user")!.text).toBe("say entered in_progress");
    // Handled once: the moves' frames seen again record nothing more.
    await srv.api("PATCH", `/tasks/${task.id}`, { title: "Back and forth, renamed" });
    await engine.flush();
    expect(await starts()).toHaveLength(2);
  });
});
