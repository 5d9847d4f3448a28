import { afterEach, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";

type Item = { id: string; kind: string; taskId: string; state: string; resolvedAt?: string };

// LIVE-4.8: what was said about a task's last turn ("the agent is waiting for you", a failed turn)
// stops needing the person once the task itself is finished: moved to Done (a merge moves it there)
// or archived. Until then it stays open.
describe.each(ONE_DATABASE)("LIVE-4.8 a finished task's turn items resolve (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });
  const inbox = async (state = "open") => (await srv!.api("GET", `/inbox?state=${state}`)).body as Item[];
  const openOf = async (taskId: string) => (await inbox()).filter((i) => i.taskId === taskId);

  it("LIVE-4.8 turn_finished resolves when the task moves to Done; turn_failed resolves when the task is archived", async () => {
    srv = await startTestServer(kind);
    const { task: finished, repository } = await repoAndTask(srv, { title: "Finished work" });
    const s1 = await srv.api("POST", `/tasks/${finished.id}/sessions`, { prompt: "say done" });
    await waitForSession(srv.api, s1.body.id, ["waiting_for_input"], 30_000);
    const [turn] = await waitFor(async () => ((await openOf(finished.id)).length ? openOf(finished.id) : undefined), "a turn_finished item");
    expect(turn).toMatchObject({ kind: "turn_finished", state: "open" });
    // Moving it elsewhere than Done keeps the item.
    expect((await srv.api("PATCH", `/tasks/${finished.id}`, { state: "review" })).status).toBe(200);
    expect((await openOf(finished.id)).map((i) => i.id)).toEqual([turn!.id]);
    expect((await srv.api("PATCH", `/tasks/${finished.id}`, { state: "done" })).status).toBe(200);
    await waitFor(async () => (await openOf(finished.id)).length === 0 || undefined, "the turn_finished item to resolve");
    const resolved = (await inbox("all")).find((i) => i.id === turn!.id)!;
    expect(resolved.state).toBe("done");
    expect(resolved.resolvedAt).toBeTypeOf("string");

    const refused = (await srv.api("POST", "/tasks", { title: "Refused work", repositories: [{ repositoryId: repository.id }] })).body as { id: string };
    await srv.api("POST", `/tasks/${refused.id}/sessions`, { prompt: "fail not allowed here" });
    const [failed] = await waitFor(async () => ((await openOf(refused.id)).length ? openOf(refused.id) : undefined), "a turn_failed item");
    expect(failed).toMatchObject({ kind: "turn_failed", state: "open" });
    expect((await srv.api("POST", `/tasks/${refused.id}/archive`)).status).toBeLessThan(300);
    await waitFor(async () => (await openOf(refused.id)).length === 0 || undefined, "the turn_failed item to resolve");
    expect((await inbox("all")).find((i) => i.id === failed!.id)!.state).toBe("done");
  });
});
