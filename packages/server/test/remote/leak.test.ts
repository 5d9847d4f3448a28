import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { openEvents, waitForSession } from "../fixture/server.js";
import { makeRemoteRepo, remoteWorld, type RemoteWorld } from "./helpers.js";

/** Every file under `dir`, recursively (symlinks not followed). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

interface ProcSample {
  pid: string;
  cmdline: string;
  environ: string;
}

/** cmdline and environ of every git-related process right now (git, git-remote-http, the helper's sh). */
function sampleGitProcesses(): ProcSample[] {
  const out: ProcSample[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "latin1");
      if (!/git|credential/.test(cmdline)) continue;
      out.push({ pid, cmdline, environ: readFileSync(`/proc/${pid}/environ`, "latin1") });
    } catch {
      // the process ended between listing and reading
    }
  }
  return out;
}

describe.each(DATABASES)("RR-2 leak test (%s)", (kind) => {
  let w: RemoteWorld;
  const responses: unknown[] = [];
  let events: Awaited<ReturnType<typeof openEvents>>;
  const samples: ProcSample[] = [];

  beforeAll(async () => {
    w = await remoteWorld(kind, "github", { env: { GROVE_LOG_LEVEL: "debug" } });
    makeRemoteRepo(w.root, "acme/secret", { "a.txt": "a\n" });
    events = await openEvents(w.srv.url);
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await w.srv.api(method, path, body);
      responses.push(r.body);
      return r;
    };
    const repo = (await api("POST", "/repositories", { url: `${w.http.url}/acme/secret`, provider: "github", credential: { token: w.token, username: "me" } }))
      .body;
    await api("GET", "/repositories");
    await api("GET", `/repositories/${repo.id}`);
    const task = (await api("POST", "/tasks", { title: "leak", repositories: [{ repositoryId: repo.id }] })).body;
    // Slow answers keep git (and its credential helper) alive long enough to be sampled.
    w.http.setMode("slow");
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        samples.push(...sampleGitProcesses());
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const s = await api("POST", `/tasks/${task.id}/sessions`, { prompt: "say hi" });
    await waitForSession(w.srv.api, s.body.id, ["waiting_for_input", "failed"]);
    sampling = false;
    await sampler;
    w.http.setMode("ok");
    await api("GET", `/sessions/${s.body.id}`);
    await api("GET", `/sessions/${s.body.id}/messages`);
    await api("GET", `/tasks/${task.id}/environment`);
    // A failing refresh too: its error must not carry the token either.
    w.http.setMode("401");
    const t2 = (await api("POST", "/tasks", { title: "leak 401", repositories: [{ repositoryId: repo.id }] })).body;
    const s2 = await api("POST", `/tasks/${t2.id}/sessions`, { prompt: "say hi" });
    await waitForSession(w.srv.api, s2.body.id, ["failed"]);
    await api("GET", `/sessions/${s2.body.id}`);
    w.http.setMode("ok");
    await w.srv.stop(); // flush logs and the SQLite WAL
  }, 60_000);
  afterAll(async () => {
    events?.close();
    await w?.close();
  });

  test("RR-2 git processes sampled during the fetch hold the token in neither cmdline nor environ", () => {
    expect(samples.some((p) => /\bfetch\b/.test(p.cmdline))).toBe(true);
    expect(samples.some((p) => /remote-http/.test(p.cmdline))).toBe(true);
    for (const p of samples) {
      expect(p.cmdline).not.toContain(w.token);
      expect(p.environ).not.toContain(w.token);
    }
  });

  test("RR-2 no API response and no event holds the token", () => {
    expect(responses.length).toBeGreaterThan(5);
    expect(JSON.stringify(responses)).not.toContain(w.token);
    expect(events.frames.length).toBeGreaterThan(3);
    expect(JSON.stringify(events.frames)).not.toContain(w.token);
  });

  test("RR-2 nothing under GROVE_HOME holds the token (database file, clone config, logs, key file)", () => {
    const files = filesUnder(w.srv.home);
    expect(files.some((f) => f.endsWith(join(".git", "config")))).toBe(true);
    expect(files.some((f) => f.endsWith("server.log") && statSync(f).size > 0)).toBe(true);
    if (kind === "sqlite") expect(files.some((f) => f.endsWith("grove.db"))).toBe(true);
    const hits = files.filter((f) => readFileSync(f).includes(Buffer.from(w.token)));
    expect(hits).toEqual([]);
  });

  test("RR-2 the database holds the credential only sealed: no text column of any table contains the token", async () => {
    if (kind === "postgres") {
      const c = new pg.Client({ connectionString: w.srv.databaseUrl });
      await c.connect();
      try {
        const cols = await c.query(
          "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND data_type IN ('text', 'character varying')",
        );
        expect(cols.rows.some((r) => r.table_name === "repository_credentials")).toBe(true);
        for (const { table_name, column_name } of cols.rows) {
          const hit = await c.query(`SELECT count(*)::int AS n FROM "${table_name}" WHERE "${column_name}" LIKE $1`, [`%${w.token}%`]);
          expect(hit.rows[0].n, `${table_name}.${column_name}`).toBe(0);
        }
        const sealed = await c.query("SELECT count(*)::int AS n FROM repository_credentials");
        expect(sealed.rows[0].n).toBe(1);
      } finally {
        await c.end();
      }
    } else {
      const db = readFileSync(join(w.srv.home, "grove.db"));
      expect(db.includes(Buffer.from("repository_credentials"))).toBe(true);
      expect(db.includes(Buffer.from(w.token))).toBe(false);
    }
  });
});
