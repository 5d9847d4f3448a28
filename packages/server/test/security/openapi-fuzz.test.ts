import { existsSync, readdirSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { Gen } from "./fuzz-gen.js";
import { rawRequest } from "./helpers.js";

const PER_OPERATION = 30;
// Far above any answer on a loaded 2-core machine, far below a hung handler.
const ANSWER_WITHIN_MS = 30_000;
const SEED = Number(process.env.GROVE_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** Every path under `dir` (files and directories), `.git` internals excluded. */
function tree(dir: string, root = dir, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === ".git") continue;
    const p = join(dir, name);
    out.push(relative(root, p));
    if (statSync(p).isDirectory()) tree(p, root, out);
  }
  return out.sort();
}

/** A path segment; a lone surrogate (no UTF-8 form) becomes CESU bytes, which are not UTF-8 either. */
function urlSegment(s: string): string {
  return [...s]
    .map((ch) => {
      try {
        return encodeURIComponent(ch);
      } catch {
        return "%ED%A0%80";
      }
    })
    .join("");
}

interface Operation {
  method: string;
  path: string;
  body?: Record<string, unknown>;
}

describe("SEC-3 SEC-8 fuzzing every operation of the OpenAPI document", () => {
  // Both databases at once: the run mostly waits on git and agent processes.
  it.concurrent.each(DATABASES)(
    `SEC-8 (%s) ≥ ${PER_OPERATION} generated requests per operation: 0 × 5xx, nothing created outside GROVE_HOME (seed ${SEED})`,
    async (kind) => {
      const srv = await startTestServer(kind);
      try {
        await fuzz(srv);
      } finally {
        await srv.close();
      }
      // The whole run's length grows with the operation count and the machine's load; what must
      // hold is that no single request hangs (checked per request below), not a wall-clock total.
    },
    600_000,
  );
});

async function fuzz(srv: TestServer): Promise<void> {
  {
    // The repository's own temp directory is the sandbox the generated strings point into.
    const repo = await makeRepo();
    const sandbox = dirname(repo.path);
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    expect(r.status).toBe(201);
    const t = await srv.api("POST", "/tasks", { title: "Fuzz", repositories: [{ repositoryId: r.body.id }] });
    const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    const before = tree(sandbox);
    const cwdBefore = readdirSync(process.cwd())
      .filter((n) => n !== ".grove-test")
      .sort();

    const doc = (await srv.api("GET", "/openapi.json")).body as {
      paths: Record<string, Record<string, { requestBody?: { content: { "application/json": { schema: Record<string, unknown> } } } }>>;
    };
    const ops: Operation[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (path === "/events") continue; // the WebSocket: covered by the Host/Origin and flood tests
        ops.push({ method: method.toUpperCase(), path, ...(op.requestBody ? { body: op.requestBody.content["application/json"].schema } : {}) });
      }
    }
    // Destructive operations last, so the others also meet live rows.
    const destructive = (o: Operation) => o.method === "DELETE" || /archive|reset/.test(o.path);
    ops.sort((a, b) => Number(destructive(a)) - Number(destructive(b)));
    expect(ops.length).toBeGreaterThanOrEqual(30);

    const pwn = join(sandbox, "pwned");
    const pool = [
      r.body.id,
      t.body.id,
      s.body.id,
      "HEAD",
      "-x",
      "--upload-pack=touch " + pwn,
      "a..b",
      "refs/heads/main",
      "main",
      "..",
      "../..",
      "/",
      sandbox,
      join(sandbox, "new"),
      join(sandbox, "repo"),
      join(srv.home, "tasks"),
      srv.home,
      `$(touch ${pwn})`,
      `\`touch ${pwn}\``,
      `; touch ${pwn}`,
      `ext::sh -c touch% ${pwn}`,
      "file:///etc",
      "ssh://-oProxyCommand=touch%20x/y",
      "https://user:pass@127.0.0.1:1/o/r.git",
      "not a url",
      "::",
      "\u0000",
      "a\u0000b",
      "\uD800",
      "%00",
      "%2e%2e%2f",
      "x".repeat(300),
      "ü",
      "scripted",
      "README.md",
      "../../../../etc/passwd",
      "true",
      "false",
      "null",
      "{}",
      "*",
      "**/*",
    ];
    const gen = new Gen(SEED, pool);
    const idFor = (p: string) => (p.startsWith("/repositories") ? r.body.id : p.startsWith("/sessions") ? s.body.id : t.body.id);
    const failures: string[] = [];
    let sent = 0;
    let slowest = { ms: 0, what: "" };
    for (const op of ops) {
      // Each live id launches an agent process on these two: a few are enough (2 cores).
      const live = /\/sessions$|\/resume$/.test(op.path) && op.method === "POST" ? 0.12 : 0.4;
      for (let i = 0; i < PER_OPERATION; i++) {
        const path = op.path.replace(/\{([A-Za-z]+)\}/g, (_, name: string) =>
          gen.chance(live) ? idFor(op.path) : name === "requestId" && gen.chance(0.5) ? "req_1" : urlSegment(gen.string()),
        );
        const query = gen.chance(0.5)
          ? "?" +
            new URLSearchParams(
              Object.fromEntries(
                ["archived", "taskId", "repositoryId", "path", "worktreeId", "discardChanges"]
                  .filter(() => gen.chance(0.4))
                  .map((k) => [k, gen.chance(0.3) ? gen.pick(["true", "false", r.body.id, "README.md"]) : gen.string()]),
              ),
            ).toString()
          : "";
        const headers: Record<string, string> = op.method === "GET" ? {} : { "content-type": "application/json" };
        let body: string | undefined;
        if (op.method !== "GET") {
          const roll = gen.rand();
          body = roll < 0.05 ? "{not json" : roll < 0.1 ? "" : JSON.stringify(op.body ? gen.value(op.body) : gen.chance(0.7) ? {} : gen.junk());
        }
        const t0 = performance.now();
        let timer: NodeJS.Timeout | undefined;
        const hung = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), ANSWER_WITHIN_MS)));
        const res = await Promise.race([rawRequest(srv.url, op.method, `/api/v1${path}${query}`, headers, body), hung]);
        clearTimeout(timer);
        sent++;
        if (res === "hung") {
          failures.push(`${op.method} ${path}${query} ${body?.slice(0, 200)} → no answer within ${ANSWER_WITHIN_MS} ms`);
          continue;
        }
        const ms = performance.now() - t0;
        if (ms > slowest.ms) slowest = { ms, what: `${op.method} ${path}${query} → ${res.status}` };
        if (res.status >= 500) failures.push(`${op.method} ${path}${query} ${body?.slice(0, 200)} → ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(failures, `seed ${SEED} (rerun with GROVE_FUZZ_SEED=${SEED})`).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(ops.length * PER_OPERATION);
    // Nothing appeared outside GROVE_HOME: not in the sandbox the strings point into, not in the working directory.
    await srv.stop();
    expect(existsSync(pwn), `seed ${SEED}`).toBe(false);
    expect(tree(sandbox), `seed ${SEED}`).toEqual(before);
    expect(
      readdirSync(process.cwd())
        .filter((n) => n !== ".grove-test")
        .sort(),
      `seed ${SEED}`,
    ).toEqual(cwdBefore);
    const worktrees = repo
      .git("worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree "))
      .map((l) => l.slice(9));
    for (const wt of worktrees.slice(1)) expect(wt.startsWith(srv.home), `seed ${SEED}: worktree ${wt}`).toBe(true);
    // Bounded: a request without an answer is a failure above; the slowest answer is shown.
    expect(slowest.ms, `slowest request: ${slowest.what}`).toBeLessThan(ANSWER_WITHIN_MS);
    await rm(sandbox, { recursive: true, force: true });
  }
}
