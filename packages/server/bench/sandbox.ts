import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptedAgentCommand } from "../src/agents/profiles.js";
import { startServer } from "../src/app.js";
import { bwrapStatus } from "../src/sandbox/bwrap.js";
import { DEFAULT_BWRAP, parsed } from "../src/config-schema.js";
import { EgressProxy } from "../src/sandbox/egress-proxy.js";
import { EGRESS_SOCKET_INSIDE, sandboxEnv, sandboxedCommand } from "../src/sandbox/launcher.js";
import { timedRow } from "./stats.js";
import { generatedRepo, gitIn, median, requestJson, type Row } from "./util.js";

/** SBX bench target: inside ≤ 1.1× outside, or at most 30 ms more. */
function target(inside: number[], outside: number[]): string {
  const extra = median(inside) - median(outside);
  const ok = median(inside) <= 1.1 * median(outside) || extra <= 30;
  return `≤ 1.1× or +30 ms (${extra >= 0 ? "+" : ""}${extra.toFixed(0)} ms: ${ok ? "met" : "NOT met"})`;
}

/** A small project with a real `npm test` (node's test runner over a few files). */
function smallProject(dir: string): void {
  mkdirSync(join(dir, "test"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "small", version: "1.0.0", private: true, scripts: { test: "node --test test/" } }));
  writeFileSync(join(dir, "sum.js"), "exports.sum = (...xs) => xs.reduce((a, b) => a + b, 0);\n");
  for (let i = 0; i < 5; i++) {
    writeFileSync(
      join(dir, "test", `t${i}.test.js`),
      `const { test } = require("node:test"); const assert = require("node:assert"); const { sum } = require("../sum.js");\ntest("sum ${i}", () => assert.strictEqual(sum(${i}, 1, 2), ${i + 3}));\n`,
    );
  }
}

/**
 * `GROVE_BENCH_ONLY=sandbox`: (1) a session launch through Grove (POST answered, agent up) with
 * the scripted agent confined vs the same program under a profile with `sandbox: "off"`,
 * alternating A B A B; (2) `npm test` of a small project in a worktree, inside the agent's
 * sandbox (the mount plan and egress proxy a session gets) vs directly, alternating.
 */
export async function sandboxBench(rounds: number): Promise<Row[]> {
  // The bubblewrap the server under test uses: the same variable, the same default.
  const bwrap = bwrapStatus(parsed(process.env, "GROVE_BWRAP") ?? DEFAULT_BWRAP, process.env.PATH);
  if (!bwrap.available) return [{ benchmark: "sandbox", grove: "-", raw: "-", ratio: "-", target: `skipped: ${bwrap.reason}` }];
  const repo = generatedRepo(1_000, "grove-bench-sbx-");
  const home = mkdtempSync(join(tmpdir(), "grove-bench-sbx-home-"));
  const s = scriptedAgentCommand();
  writeFileSync(
    join(home, "agents.json"),
    JSON.stringify({
      agents: [
        {
          name: "loose",
          command: s.command,
          args: s.args,
          env: { GROVE_SCRIPTED_STATE_DIR: join(home, "agents", "loose") },
          permissionPolicy: "auto_approve",
          sandbox: "off",
        },
      ],
    }),
  );
  const server = await startServer({
    env: { ...process.env, GROVE_HOME: home, GROVE_PORT: "0", GROVE_LOG_LEVEL: "warn", GROVE_DATABASE_URL: "" },
    quiet: true,
  });
  const api = (method: string, path: string, body?: unknown) => requestJson(method, `${server.url}/api/v1${path}`, body);
  const rows: Row[] = [];
  try {
    const repoRow = await api("POST", "/repositories", { path: repo });
    const inside: number[] = [];
    const outside: number[] = [];
    const launch = async (agent: string, i: number, into: number[]) => {
      const t = await api("POST", "/tasks", { title: `sbx ${agent} ${i}`, repositories: [{ repositoryId: repoRow.id }] });
      const t0 = performance.now();
      const sess = await api("POST", `/tasks/${t.id}/sessions`, { agent, prompt: "" });
      into.push(performance.now() - t0);
      if (sess.sandbox !== (agent === "loose" ? "unconfined" : "confined")) throw new Error(`session ${sess.id} is ${sess.sandbox}`);
    };
    // One unmeasured launch of each warms caches (bundle, git, bwrap's probe).
    await launch("scripted", -1, []);
    await launch("loose", -1, []);
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) {
        await launch("scripted", i, inside);
        await launch("loose", i, outside);
      } else {
        await launch("loose", i, outside);
        await launch("scripted", i, inside);
      }
    }
    rows.push({
      ...timedRow("sandbox: launch, POST /sessions answered, agent up (confined vs sandbox off)", inside, outside, target(inside, outside), "unconfined: "),
      data: { inside, outside },
    });

    // npm test in a worktree, inside the mount plan a session gets, vs on the host.
    const wt = join(home, "tasks", "bench", "small");
    mkdirSync(join(home, "tasks", "bench"), { recursive: true });
    gitIn(repo, "worktree", "add", "-q", "-b", "sbx-bench", "--", wt, "main");
    smallProject(wt);
    const common = gitIn(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").trim();
    const admin = gitIn(wt, "rev-parse", "--path-format=absolute", "--git-dir").trim();
    const agentDir = join(home, "agents", "bench");
    mkdirSync(join(agentDir, "home"), { recursive: true });
    const proxy = await EgressProxy.start({ allow: [], forbiddenPorts: () => [], onBlocked: () => undefined });
    try {
      const npm = spawnSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).stdout.trim();
      const wrapped = sandboxedCommand(
        bwrap.path,
        {
          groveHome: home,
          personHome: process.env.HOME,
          agentDir,
          agentHome: join(agentDir, "home"),
          cwd: wt,
          worktrees: [{ workTree: wt, adminDir: admin, commonDir: common }],
          options: {},
          egress: { socket: proxy.socketPath, inside: EGRESS_SOCKET_INSIDE },
        },
        npm,
        ["test", "--silent"],
      );
      const env = { ...process.env, ...sandboxEnv(join(agentDir, "home")) } as NodeJS.ProcessEnv;
      for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
      const run = (sandboxed: boolean): number => {
        const t0 = performance.now();
        const r = sandboxed
          ? spawnSync(wrapped.command, wrapped.args, { cwd: wt, env, stdio: ["ignore", "pipe", "pipe"] })
          : spawnSync(npm, ["test", "--silent"], { cwd: wt, stdio: ["ignore", "pipe", "pipe"] });
        const elapsed = performance.now() - t0;
        if (r.status !== 0) throw new Error(`npm test ${sandboxed ? "inside" : "outside"} failed (${r.status}): ${r.stderr}`);
        return elapsed;
      };
      run(true);
      run(false);
      const inNpm: number[] = [];
      const outNpm: number[] = [];
      for (let i = 0; i < rounds; i++) {
        if (i % 2 === 0) {
          inNpm.push(run(true));
          outNpm.push(run(false));
        } else {
          outNpm.push(run(false));
          inNpm.push(run(true));
        }
      }
      rows.push({
        ...timedRow("sandbox: npm test of a small project in the worktree (inside vs outside)", inNpm, outNpm, target(inNpm, outNpm), "outside: "),
        data: { inside: inNpm, outside: outNpm },
      });
    } finally {
      await proxy.close();
    }
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
  return rows;
}
