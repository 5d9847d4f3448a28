import { readdirSync, readFileSync } from "node:fs";
import { randomInt } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { isAlive } from "../../src/agents/process-info.js";
import { terminals } from "../../src/orchestrator/terminals.js";
import { ONE_DATABASE } from "../fixture/db.js";
import { startTestServer, waitFor, type TestServer } from "../fixture/server.js";
import { taskWithSession, waitForJob } from "../lifecycle/helpers.js";

/** Host pids of processes whose command line is exactly `sleep <seconds>`. */
function sleepers(seconds: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").filter(Boolean);
      if (argv.length === 2 && argv[0]!.endsWith("sleep") && argv[1] === String(seconds)) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe.each(ONE_DATABASE)("terminal processes die with their task (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  it("LC-3 SEC-7 `nohup` and `setsid` jobs started in the page's terminal are gone after archive (the shell's own pid namespace)", async () => {
    srv = await startTestServer(kind);
    const { task, slot } = await taskWithSession(srv, "write a.txt a");
    const ws = new WebSocket(`${srv.url.replace(/^http/, "ws")}/api/v1/tasks/${task.id}/terminal?repositoryId=${slot.repositoryId}`);
    let screen = "";
    ws.on("message", (d) => (screen += d.toString()));
    await new Promise<void>((res, rej) => {
      ws.once("open", () => res());
      ws.once("error", rej);
    });
    const [a, b] = [randomInt(20_000, 30_000), randomInt(30_001, 40_000)];
    ws.send(
      JSON.stringify({
        type: "input",
        data: `nohup sleep ${a} >/dev/null 2>&1 &\nsetsid sleep ${b} >/dev/null 2>&1 < /dev/null &\necho started-$((${a}+1))\n`,
      }),
    );
    await waitFor(() => screen.includes(`started-${a + 1}`), "the terminal to start both jobs");
    const jobs = await waitFor(() => {
      const found = [...sleepers(a), ...sleepers(b)];
      return found.length === 2 ? found : undefined;
    }, "both jobs running");
    expect(terminals.pidsOf(task.id)).toHaveLength(1);

    const archive = await srv.api("POST", `/tasks/${task.id}/archive`);
    expect(archive.status).toBe(202);
    await waitForJob(srv.api, task.id, archive.body.jobId, ["succeeded"]);
    // Cleanup waited for the namespace to go before it removed the worktree.
    for (const pid of jobs) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect([...sleepers(a), ...sleepers(b)]).toEqual([]);
    expect(terminals.pidsOf(task.id)).toEqual([]);
    ws.close();
  });
});
