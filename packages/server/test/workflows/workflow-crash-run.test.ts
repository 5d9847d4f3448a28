import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { crashServers } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { waitFor, waitForSession } from "../fixture/server.js";
import { settledRuns } from "./helpers.js";

type Run = { action: string; state: string; outcome: string | null; result?: { exitCode: number | null; output: string } };

/**
 * The command leaves one line per execution in the worktree, at once, and then runs on until the
 * test lets it end (a `go` file; at most 120 s): it is still running when the first server dies
 * and while the restarted server decides what to do with the run. The test lets it end only once
 * the restarted server logged that it resumed the run, so a second execution would have left its
 * line by then.
 */
const RUN = `steps:
  - id: review
    onEnter:
      - action: run
        command: "echo ran >> ran.log; i=0; while [ ! -e go ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done; echo finished"
        timeoutSeconds: 180
        onSuccess:
          to: done
`;

/**
 * WF-2.14 with the real `grove serve`: the process dies (exit 137, like kill -9) with a `run`
 * action claimed and nothing started (`workflow.after_claim`), or right after its command
 * started (`workflow.after_command_start`: the command runs on without the server). The
 * restarted server ends the run with the command's result, and the command ran exactly once.
 */
describe.each(DATABASES)("WF-2.14 kill -9 in the middle of a run action (%s)", { timeout: 240_000 }, (kind) => {
  const t = crashServers(kind);

  for (const fault of ["workflow.after_claim", "workflow.after_command_start"]) {
    it(`WF-2.14 run: a crash at ${fault} → the restarted server records the command's result; it ran once`, async () => {
      const w = await t.home();
      const repo = await makeRepo({ name: `crash-run-${fault.replace(/\W/g, "-")}` });
      t.cleanups.push(() => repo.cleanup());
      const first = await w.start(`${fault}:exit`);
      const r = await first.api("POST", "/repositories", { path: repo.path });
      expect((await first.api("PUT", "/workflows/checks", RUN)).status).toBe(200);
      const task = (await first.api("POST", "/tasks", { title: "Run once", repositories: [{ repositoryId: r.body.id }] })).body;
      const session = (await first.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say ready" })).body;
      await waitForSession(first.api, session.id, ["waiting_for_input"], 60_000);
      const worktree = (await first.api("GET", `/tasks/${task.id}/environment`)).body.repositories[0].worktreePath as string;
      await first.api("PATCH", `/tasks/${task.id}`, { state: "review" }).catch(() => undefined);
      expect((await first.server.exited).code).toBe(137);

      const second = await w.start();
      const log = join(w.home, "logs", "server.log");
      await waitFor(
        () => existsSync(log) && readFileSync(log, "utf8").includes("workflow run resumed after a restart"),
        "the restarted server resumed the run",
        60_000,
      );
      writeFileSync(join(worktree, "go"), "");
      const runs = await settledRuns<Run>(second.api, task.id, "the run and its move ended");
      expect(runs.map((x) => [x.action, x.state, x.outcome])).toEqual([
        ["run", "succeeded", "exit 0 → done"],
        ["move", "succeeded", "moved to done"],
      ]);
      expect(runs[0]!.result).toEqual({ exitCode: 0, timedOut: false, output: "finished\n" });
      expect((await second.api("GET", `/tasks/${task.id}`)).body.state).toBe("done");
      expect((await second.api("GET", `/tasks/${task.id}/environment`)).body.repositories[0].worktreePath).toBe(worktree);
      expect(readFileSync(join(worktree, "ran.log"), "utf8")).toBe("ran\n");
    });
  }
});
