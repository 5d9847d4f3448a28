import { describe, expect, it } from "vitest";
import { crashServers } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { waitFor } from "../fixture/server.js";
import { settledRuns } from "./helpers.js";

type Run = { action: string; cause: string; state: string; outcome: string | null };

/** Done archives after a fraction of a day (about 0.17 s), so the real `grove serve` comes due while the test waits. */
const ARCHIVING = "steps:\n  - id: done\n    archiveAfterDays: 0.000002\n";

/**
 * WF-2.18 with the real `grove serve`: the process dies (exit 137, like kill -9) after the
 * archive run was claimed, or after the archive job was committed and before the run was told;
 * the next server on the same home and database ends the run with one archive job.
 */
describe.each(DATABASES)("WF-2.18 kill -9 in the middle of an archive after N days (%s)", { timeout: 240_000 }, (kind) => {
  const crash = crashServers(kind);

  for (const fault of ["workflow.after_claim", "workflow.after_archive"]) {
    it(`WF-2.18 a crash at ${fault} → the restarted server archives the task once; the run succeeded`, async () => {
      const { start } = await crash.home();
      const repo = await makeRepo({ name: "archive-crash" });
      crash.cleanups.push(repo.cleanup);
      const first = await start(`${fault}:exit`);
      const repositoryId = (await first.api("POST", "/repositories", { path: repo.path })).body.id as string;
      const taskId = (await first.api("POST", "/tasks", { title: "archive me", repositories: [{ repositoryId }] })).body.id as string;
      expect((await first.api("PUT", "/workflows/tidy", ARCHIVING)).status).toBe(200);
      await first.api("PATCH", `/tasks/${taskId}`, { state: "done" }).catch(() => undefined);
      expect((await first.server.exited).code).toBe(137);

      const second = await start();
      const runs = await settledRuns<Run>(second.api, taskId, "the crashed archive run ended");
      expect(runs.map((r) => [r.action, r.cause, r.state])).toEqual([["archive", "archive_after_days", "succeeded"]]);
      await waitFor(async () => ((await second.api("GET", `/tasks/${taskId}`)).body.archivedAt ? true : undefined), "the task archived");
      const jobs = (await second.api("GET", `/cleanup-jobs?taskId=${taskId}`)).body as { trigger: string }[];
      expect(jobs.map((j) => j.trigger)).toEqual(["archive"]);
    });
  }
});
