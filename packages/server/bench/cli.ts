import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startServer } from "../src/app.js";
import { generatedRepo, median, ms, type Row } from "./util.js";

const run = promisify(execFile);
const LAUNCHER = fileURLToPath(new URL("../bin/grove.mjs", import.meta.url));

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;

/**
 * "the CLI answers at once": the CLI's own cost per command = the command's wall time
 * (a fresh `node bin/grove.mjs … --json` process, bundled client) minus the same HTTP calls made
 * from a warm client, with `node -e 0` (a process that does nothing) as the floor; alternated
 * A B C per round, medians of the rounds. Target: own cost ≤ 150 ms.
 */
export async function cliBench(rounds: number): Promise<Row[]> {
  const home = mkdtempSync(join(process.env.GROVE_BENCH_TMP ?? tmpdir(), "grove-bench-cli-"));
  const server = await startServer({
    env: { ...process.env, GROVE_HOME: home, GROVE_PORT: "0", GROVE_LOG_LEVEL: "warn", GROVE_DATABASE_URL: "" },
    quiet: true,
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: method === "GET" ? {} : { "content-type": "application/json" },
      body: method === "GET" ? undefined : JSON.stringify(body ?? {}),
    });
    return (await r.json()) as any;
  };
  const repo = await api("POST", "/repositories", { path: generatedRepo(10, "grove-bench-cli-repo-"), name: "bench" });
  const task = await api("POST", "/tasks", { title: "bench", repositories: [{ repositoryId: repo.id }] });
  for (let i = 0; i < 20; i++) await api("POST", "/tasks", { title: `filler ${i}`, repositories: [{ repositoryId: repo.id }] });
  const session = await api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hello\nsay world" });
  const env = { ...process.env, GROVE_AUTH_TOKEN: "", GROVE_CLI_BUNDLE: "require" };
  const commands: { name: string; argv: string[]; http: () => Promise<unknown> }[] = [
    { name: "grove task ls", argv: ["task", "ls"], http: () => api("GET", "/tasks?archived=false") },
    {
      name: "grove task show",
      argv: ["task", "show", task.id],
      http: () => Promise.all([api("GET", `/tasks/${task.id}`), api("GET", `/tasks/${task.id}/sessions`)]),
    },
    {
      name: "grove session show",
      argv: ["session", "show", session.id],
      http: () => Promise.all([api("GET", `/sessions/${session.id}`), api("GET", `/sessions/${session.id}/messages`)]),
    },
  ];
  const rows: Row[] = [];
  try {
    for (const c of commands) {
      const cli: number[] = [];
      const http: number[] = [];
      const floor: number[] = [];
      await c.http(); // warm the client's connection, as a long-lived one would be
      for (let round = 0; round < rounds; round++) {
        cli.push(await timed(() => run(process.execPath, [LAUNCHER, ...c.argv, "--json", "--server", server.url], { env })));
        http.push(await timed(c.http));
        floor.push(await timed(() => run(process.execPath, ["-e", "0"])));
      }
      const own = median(cli) - median(http);
      rows.push({
        benchmark: `CLI own cost: ${c.name}`,
        grove: `${ms(own)} (command ${ms(median(cli))}, ${spread(cli)})`,
        raw: `HTTP ${ms(median(http))}; node -e 0 ${ms(median(floor))} (${spread(floor)})`,
        ratio: `${(own / median(floor)).toFixed(2)}× node -e 0`,
        target: "own cost ≤ 150 ms",
      });
    }
  } finally {
    await server.close();
  }
  return rows;
}
