import { describe, expect, it } from "vitest";
import { crashServers, type Api } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { waitFor } from "../fixture/server.js";

type Run = { id: string; action: string; state: string; sessionId: string | null; step: string };

const REVIEW = 'steps:\n  - id: review\n    onEnter:\n      - action: start_session\n        agent: scripted\n        prompt: "say reviewed"\n';
const MOVE = "steps:\n  - id: review\n    onEnter:\n      - action: move\n        to: in_progress\n";

/**
 * WF-2 with the real `grove serve`: the process dies (exit 137, like kill -9) in the middle of
 * an action; the next server on the same home and database finishes it, and it ran exactly once.
 */
describe.each(DATABASES)("WF-2 kill -9 in the middle of an action (%s)", { timeout: 240_000 }, (kind) => {
  const crash = crashServers(kind);

  async function scenario(yaml: string, fault: string): Promise<{ api: Api; taskId: string }> {
    const { start } = await crash.home();
    const repo = await makeRepo({ name: `crash-${fault.replace(/\W/g, "-")}` });
    crash.cleanups.push(repo.cleanup);
    const first = await start(`${fault}:exit`);
    const r = await first.api("POST", "/repositories", { path: repo.path });
    expect((await first.api("PUT", "/workflows/crashy", yaml)).status).toBe(200);
    const task = await first.api("POST", "/tasks", { title: "Crashy", repositories: [{ repositoryId: r.body.id }] });
    await first.api("PATCH", `/tasks/${task.body.id}`, { state: "review" }).catch(() => undefined);
    expect((await first.server.exited).code).toBe(137);
    const second = await start();
    return { api: second.api, taskId: task.body.id };
  }

  const runs = async (api: Api, taskId: string) => (await api("GET", `/tasks/${taskId}/workflow-runs`)).body as Run[];

  for (const fault of ["workflow.after_claim", "workflow.after_plan", "workflow.after_start"]) {
    it(`WF-2 start_session: a crash at ${fault} → the restarted server starts the reviewer exactly once`, async () => {
      const { api, taskId } = await scenario(REVIEW, fault);
      const [run] = await waitFor(async () => {
        const all = await runs(api, taskId);
        return all.length === 1 && all[0]!.state !== "running" && all[0]!.state !== "pending" ? all : undefined;
      }, "the start run ended");
      const sessions = (await api("GET", `/tasks/${taskId}/sessions`)).body as { id: string }[];
      expect(sessions.map((s) => s.id)).toEqual([run!.sessionId]);
    });
  }

  it("WF-2 move: a crash at workflow.after_claim → the restarted server moves the task exactly once", async () => {
    const { api, taskId } = await scenario(MOVE, "workflow.after_claim");
    await waitFor(async () => ((await api("GET", `/tasks/${taskId}`)).body.state === "in_progress" ? true : undefined), "the move done");
    await waitFor(async () => ((await runs(api, taskId))[0]?.state === "succeeded" ? true : undefined), "the move run succeeded");
    expect((await runs(api, taskId)).map((r) => [r.action, r.step, r.state])).toEqual([["move", "review", "succeeded"]]);
  });
});
