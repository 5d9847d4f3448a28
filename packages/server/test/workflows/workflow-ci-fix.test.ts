import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { waitFor, waitForSession } from "../fixture/server.js";
import { addRemote, launch, makeRemoteRepo, remoteWorld, type RemoteWorld } from "../remote/helpers.js";
import { startFakeProvider, type FakeProvider } from "../review/fake-provider.js";
import { runsOf } from "./helpers.js";

const CI = "steps:\n  - id: review\ntriggers:\n  checksFailed:\n    maxRounds: 3\n  merged:\n    to: done\n";

// WF-2 against the fake provider REST API: failing checks go to the agent with the check's
// text, one round per failing head commit, three at most; then an inbox item and no fourth round.
describe.each(ONE_DATABASE)("WF-2 CI-fix rounds (%s)", { timeout: 240_000 }, (kind) => {
  let w: RemoteWorld;
  let fake: FakeProvider;

  beforeAll(async () => {
    w = await remoteWorld(kind, "github", { env: { GROVE_PR_REFRESH_MS: "0" } });
    makeRemoteRepo(w.root, "acme/widget", { "README.md": "# widget\n" });
    fake = await startFakeProvider("github", w.token, `${w.http.url}/acme/widget`);
  }, 90_000);
  afterAll(async () => {
    await fake?.close();
    await w?.close();
  });

  it("WF-2 a failing check → a fix prompt with its name and log to the task's agent, per pushed head; after 3 rounds an inbox item and no 4th; merged → Done", async () => {
    const srv = w.srv;
    const repo = await addRemote(srv, { url: `${w.http.url}/acme/widget`, provider: "github", credential: { token: w.token }, apiUrl: fake.apiUrl });
    expect((await srv.api("PUT", "/workflows/ci", CI)).status).toBe(200);
    const { task, session } = await launch(srv, [{ repositoryId: repo.id }], "CI task");
    expect((await srv.api("POST", `/sessions/${session.id}/prompt`, { prompt: "write f.txt F\ncommit task work" })).status).toBe(202);
    await waitForSession(srv.api, session.id, ["waiting_for_input"]);
    expect((await srv.api("POST", `/tasks/${task.id}/pull-requests`, { title: "Add f" })).status).toBe(201);

    const fixRuns = async () => (await runsOf(srv, task.id)).filter((r) => r.cause === "checks_failed");
    for (let round = 1; round <= 4; round++) {
      // The agent pushed a fix: a new head, and the check fails again.
      fake.prs[0]!.sha = `${round}`.repeat(40).slice(0, 40);
      fake.checks = [{ name: "lint", state: "failure", summary: `lint: ${round} errors in f.txt` }];
      expect((await srv.api("POST", `/tasks/${task.id}/pull-requests/refresh`)).body[0].checks).toBe("failure");
      if (round <= 3) {
        await waitFor(async () => ((await fixRuns()).filter((r) => r.state === "succeeded").length === round ? true : undefined), `fix round ${round}`);
        const prompts = ((await srv.api("GET", `/sessions/${session.id}/messages`)).body as { role: string; text: string }[]).filter((m) => m.role === "user");
        expect(prompts.at(-1)!.text).toMatch(new RegExp(`^Failed check: lint: .*lint: ${round} errors in f\\.txt$`, "m"));
      }
    }
    const capped = await waitFor(
      async () =>
        ((await srv.api("GET", "/inbox")).body as { title: string; taskId: string }[]).find(
          (i) => i.taskId === task.id && i.title.includes("after 3 automatic fix rounds"),
        ),
      "the cap's inbox item",
    );
    expect(capped.title).toBe("CI task: checks still fail after 3 automatic fix rounds; over to you");
    expect(await fixRuns()).toHaveLength(3);
    // The same failing head seen again is no new round.
    expect((await srv.api("POST", `/tasks/${task.id}/pull-requests/refresh`)).status).toBe(200);
    expect(await fixRuns()).toHaveLength(3);

    fake.checks = [{ name: "lint", state: "success", summary: "clean" }];
    fake.prs[0]!.state = "merged";
    expect((await srv.api("POST", `/tasks/${task.id}/pull-requests/refresh`)).body[0].state).toBe("merged");
    await waitFor(
      async () => ((await runsOf(srv, task.id)).some((r) => r.cause === "merged" && r.state !== "pending" && r.state !== "running") ? true : undefined),
      "the merged trigger ran",
    );
    expect((await srv.api("GET", `/tasks/${task.id}`)).body.state).toBe("done");
  });
});
