import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { join } from "node:path";
import { startServer } from "../src/app.js";
import { startGitHttpServer } from "../test/remote/harness/git-http-server.js";
import { timedRow } from "./stats.js";
import { generatedRepo, gitIn, type Row } from "./util.js";

/**
 * RR-1 benchmark: register a remote repository of 10,000 files (managed GitHub route over the
 * local smart-HTTP server: clone with the credential helper) and launch its first session,
 * against raw `git clone` + `git worktree add` of the same repository over the same server
 * (A B A B). Target: ≤ 1.3×.
 */
const run = promisify(execFile);

export async function remoteBench(rounds = Number(process.env.GROVE_BENCH_REMOTE_ROUNDS ?? 5)): Promise<Row[]> {
  const source = generatedRepo(10_000, "grove-bench-remote-src-");
  const tmp = process.env.GROVE_BENCH_TMP ?? tmpdir();
  const root = mkdtempSync(join(tmp, "grove-bench-remote-root-"));
  const token = "bench-token";
  for (let i = 0; i < rounds * 2; i++) gitIn(root, "clone", "-q", "--bare", "--no-local", source, join(root, "acme", `big${i}.git`));
  const http = await startGitHttpServer({ root, kind: "github", token });
  const home = mkdtempSync(join(tmp, "grove-bench-remote-home-"));
  const server = await startServer({
    env: { ...process.env, GROVE_HOME: home, GROVE_PORT: "0", GROVE_LOG_LEVEL: "warn", GROVE_DATABASE_URL: "" },
    quiet: true,
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: method === "GET" ? {} : { "content-type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await r.json()) as any;
  };
  const grove: number[] = [];
  const raw: number[] = [];
  const auth = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
  try {
    for (let i = 0; i < rounds; i++) {
      // Raw: the same transfer and checkout work, authenticated by a header (a baseline, not a practice).
      const t0 = performance.now();
      const dest = join(home, `raw-${i}`);
      // Asynchronous: the git server runs in this process and must keep answering.
      await run("git", ["-c", `http.extraHeader=${auth}`, "clone", "-q", `${http.url}/acme/big${2 * i}.git`, dest], { cwd: home });
      await run("git", ["worktree", "add", "-q", "-b", `raw-${i}`, "--", join(home, `raw-wt-${i}`), "main"], { cwd: dest });
      raw.push(performance.now() - t0);

      const t1 = performance.now();
      const repo = await api("POST", "/repositories", { url: `${http.url}/acme/big${2 * i + 1}.git`, provider: "github", credential: { token } });
      const task = await api("POST", "/tasks", { title: `remote bench ${i}`, repositories: [{ repositoryId: repo.id }] });
      const session = await api("POST", `/tasks/${task.id}/sessions`, {});
      grove.push(performance.now() - t1);
      if (session.state !== "waiting_for_input") throw new Error(`bench session ended ${session.state}: ${JSON.stringify(session.lastError)}`);
    }
  } finally {
    await server.close();
    await http.close();
    for (const d of [source, root, home]) rmSync(d, { recursive: true, force: true });
  }
  return [timedRow("remote clone + first launch (10k files)", grove, raw, "≤ 1.3×")];
}
