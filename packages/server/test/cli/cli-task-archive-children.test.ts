import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { jobsOf, waitForJob } from "../lifecycle/helpers.js";
import { briefTask, runSession } from "../mcp/helpers.js";
import { runGrove } from "./run-cli.js";

// MCP-3.7 at the shell: `grove task archive <id> --children archive|keep`.
describe("grove task archive --children", () => {
  let srv: TestServer;
  const grove = (...args: string[]) => runGrove([...args, "--server", srv.url]);
  const archivedAt = async (id: string) => (await srv.api("GET", `/tasks/${id}`)).body.archivedAt as string | null;

  /** A task with one subtask, made by the task's agent through `subtask_create`. */
  async function parentWithSubtask(title: string): Promise<{ parent: string; kid: string }> {
    const { task } = await briefTask(srv, title, "split me");
    await runSession(srv, task.id, `mcp subtask_create {"title":"${title} kid"}`);
    const kids = (await srv.api("GET", `/tasks?parentId=${task.id}`)).body as { id: string }[];
    expect(kids).toHaveLength(1);
    return { parent: task.id, kid: kids[0]!.id };
  }

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
  });
  afterAll(async () => {
    await srv?.close();
  });

  it("MCP-3.7: without --children a task with an open subtask is refused naming the subtask and the flag; a bad value is refused before the server is asked; --children keep archives only the task", async () => {
    const { parent, kid } = await parentWithSubtask("Keeper");
    const refused = await grove("task", "archive", parent);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: task_has_children: /);
    expect(refused.stderr).toContain(kid);
    expect(refused.stderr).toContain("--children archive");
    expect(refused.stderr).toContain("--children keep");
    expect(refused.stderr).not.toContain('children: "');
    const json = await grove("task", "archive", parent, "--json");
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: "task_has_children", details: { children: [kid] } });

    const bad = await grove("task", "archive", parent, "--children", "sideways");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: invalid_arguments: --children must be archive or keep/);
    expect(await archivedAt(parent)).toBeNull();
    expect(await jobsOf(srv.api, parent)).toEqual([]);

    const kept = await grove("task", "archive", parent, "--children", "keep", "--json");
    expect(kept.code).toBe(0);
    const jobId = JSON.parse(kept.stdout).jobId as string;
    expect((await waitForJob(srv.api, parent, jobId, ["succeeded", "failed"])).state).toBe("succeeded");
    expect(await archivedAt(kid)).toBeNull();
    expect(await jobsOf(srv.api, kid)).toEqual([]);
  });

  it("MCP-3.7: --children archive archives the task and its open subtask; help lists the flag", async () => {
    const { parent, kid } = await parentWithSubtask("Sweeper");
    const r = await grove("task", "archive", parent, "--children", "archive");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`archiving task ${parent} and its open subtasks`);
    for (const id of [kid, parent]) {
      const [job] = await jobsOf(srv.api, id);
      expect((await waitForJob(srv.api, id, job.id, ["succeeded", "failed"])).state).toBe("succeeded");
      expect(await archivedAt(id)).not.toBeNull();
    }
    const help = await grove("task", "archive", "--help");
    expect(help.stdout).toMatch(/--children <what>\s+when the task has open subtasks: archive/);
  });
});
