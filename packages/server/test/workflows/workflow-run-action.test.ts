import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { serverPerTest, waitForSession } from "../fixture/server.js";
import { applyWorkflow, runsOf, waitForRun, waitForTaskState } from "./helpers.js";

/**
 * Review runs the checks in the task's sandbox: they fail until the agent wrote `fixed.txt`.
 * The failure goes back to In Progress with the output as the agent's prompt (its last lines
 * are the scripted agent's fix); the agent's completed turn moves the task to Review again.
 */
const CHECKS = `steps:
  - id: review
    onEnter:
      - action: run
        command: "echo \\"home=$HOME\\"; if test -f fixed.txt; then echo all good; else echo 'FAIL: fixed.txt is missing'; exit 3; fi"
        timeoutSeconds: 120
        onSuccess:
          to: done
        onFailure:
          to: in_progress
          prompt: "The checks failed (exit {{exitCode}}):\\n{{output}}\\nwrite fixed.txt yes\\ncommit fix the checks"
  - id: in_progress
    on:
      completed: review
`;

describe.each(ONE_DATABASE)("WF-2.13 the run action (%s)", { timeout: 180_000 }, (kind) => {
  const perTest = serverPerTest(kind);

  it("WF-2.13 a command in the task's sandbox: its exit code and output on the run; a failure → In Progress with the output as the agent's prompt; the fixed run → Done", async () => {
    const srv = await perTest.start();
    const { repo, task } = await repoAndTask(srv, { title: "Checks" });
    perTest.track(repo);
    await applyWorkflow(srv, "checks", CHECKS);
    const session = (await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say ready" })).body;
    await waitForSession(srv.api, session.id, ["waiting_for_input"], 60_000);

    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "review" })).status).toBe(200);
    const failed = await waitForRun(srv, task.id, "the failing command", (r) => r.action === "run" && r.state === "failed", 60_000);
    expect(failed.outcome).toBe("exit 3 → in_progress");
    const first = (await runsOf(srv, task.id)).find((r) => r.id === failed.id) as unknown as {
      result: { exitCode: number; timedOut: boolean; output: string };
    };
    expect(first.result.exitCode).toBe(3);
    expect(first.result.timedOut).toBe(false);
    expect(first.result.output).toContain("FAIL: fixed.txt is missing");
    // SBX-1 confinement, as the agent gets it: HOME is the agent's own under GROVE_HOME/agents.
    expect(first.result.output).toContain(`home=${join(srv.home, "agents", "scripted", "home")}`);

    await waitForTaskState(srv, task.id, "done", 120_000);
    const runs = await runsOf(srv, task.id);
    expect(runs.filter((r) => r.action === "run").map((r) => [r.state, r.outcome])).toEqual([
      ["failed", "exit 3 → in_progress"],
      ["succeeded", "exit 0 → done"],
    ]);
    const prompt = runs.find((r) => r.action === "prompt")!;
    expect([prompt.step, prompt.state, prompt.sessionId, prompt.outcome]).toEqual(["in_progress", "succeeded", session.id, "turn completed → review"]);
    // The output reached the working session once, as one prompt.
    const sent = ((await srv.api("GET", `/sessions/${session.id}/messages`)).body as { role: string; text: string }[]).filter(
      (m) => m.role === "user" && m.text.includes("FAIL: fixed.txt is missing"),
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]!.text).toMatch(/^The checks failed \(exit 3\):\n/);
    // The command's bookkeeping lives under GROVE_HOME, never in the worktree it ran in.
    const ws = (await srv.api("GET", `/tasks/${task.id}/environment`)).body.repositories[0].worktreePath as string;
    expect(existsSync(join(ws, "fixed.txt"))).toBe(true);
    expect(existsSync(join(srv.home, "workflow-runs", failed.id, "exit"))).toBe(true);
  });

  it("WF-2.13 a command past its timeout is killed and recorded as timed out; the run fails and moves nothing without onFailure", async () => {
    const srv = await perTest.start();
    const { repo, task } = await repoAndTask(srv, { title: "Slow" });
    perTest.track(repo);
    await applyWorkflow(
      srv,
      "slow",
      'steps:\n  - id: review\n    onEnter:\n      - action: run\n        command: "echo started; sleep 600"\n        timeoutSeconds: 1\n',
    );
    const session = (await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "say ready" })).body;
    await waitForSession(srv.api, session.id, ["waiting_for_input"], 60_000);
    expect((await srv.api("PATCH", `/tasks/${task.id}`, { state: "review" })).status).toBe(200);
    const run = await waitForRun(srv, task.id, "the timed-out command", (r) => r.action === "run" && r.state === "failed", 60_000);
    expect(run.outcome).toBe("timed out after 1 s");
    expect((run as unknown as { result: unknown }).result).toEqual({ exitCode: null, timedOut: true, output: "started\n" });
    expect((await runsOf(srv, task.id)).map((r) => r.action)).toEqual(["run"]);
    expect((await srv.api("GET", `/tasks/${task.id}`)).body.state).toBe("review");
  });

  it("WF-2.13 a bad run action → 400 invalid_workflow with its line; nothing stored", async () => {
    const srv = await perTest.start();
    const bad: [string, number, RegExp][] = [
      ['steps:\n  - id: review\n    onEnter:\n      - action: run\n        command: "npm test"\n        timeoutSeconds: 0\n', 6, /timeoutSeconds/],
      [
        'steps:\n  - id: review\n    onEnter:\n      - action: run\n        command: "npm test"\n        onFailure:\n          to: staging\n',
        7,
        /unknown step "staging"/,
      ],
      [
        'steps:\n  - id: review\n    onEnter:\n      - action: run\n        command: "npm test"\n        onFailure:\n          prompt: "{{secret}}"\n',
        7,
        /unknown template field \{\{secret\}\}/,
      ],
      ["steps:\n  - id: review\n    onEnter:\n      - action: run\n        timeoutSeconds: 5\n", 4, /command/],
      ['steps:\n  - id: review\n    onEnter:\n      - action: run\n        command: "x"\n        retries: 2\n', 6, /unknown field/],
      [
        'steps:\n  - id: review\n    onEnter:\n      - action: run\n        command: "x"\n        onFailure:\n          to: in_progress\n  - id: in_progress\n    onEnter:\n      - action: move\n        to: review\n',
        11,
        /cycle of automatic moves without a guard: review → in_progress → review|in_progress → review → in_progress/,
      ],
    ];
    for (const [yaml, line, message] of bad) {
      const r = await srv.api("PUT", "/workflows/bad", yaml);
      expect(r.status, yaml).toBe(400);
      expect(r.body.error.code).toBe("invalid_workflow");
      expect(r.body.error.details.line, yaml).toBe(line);
      expect(r.body.error.message).toMatch(message);
    }
    expect((await srv.api("GET", "/workflows/bad")).status).toBe(404);
  });
});
