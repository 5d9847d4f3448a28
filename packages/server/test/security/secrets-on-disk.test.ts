/// <reference lib="dom" />
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASES, freshDatabase } from "../fixture/db.js";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { openEvents, startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { launchBrowser } from "../e2e/ui-harness.js";
import { rawRequest } from "./helpers.js";

// A browser global used inside page.evaluate (this package is type-checked without the DOM library).
declare const document: { cookie: string };

const TOKEN = "s3cret-token-0123456789abcdef";

/** Every path under `dir`, not descending into the checkouts below tasks/<task>/ and clones/. */
function walk(dir: string, home: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    out.push(path);
    const rel = relative(home, path).split("/");
    const checkout = (rel[0] === "tasks" && rel.length >= 3) || (rel[0] === "clones" && rel.length >= 2) || (rel[0] === "agents" && rel.length >= 2);
    if (lstatSync(path).isDirectory() && !checkout) walk(path, home, out);
  }
  return out;
}

/** Files and directories under `home` whose mode is not 0600/0700 (checkout contents excepted, see walk). */
function wrongModes(home: string): string[] {
  const wrong: string[] = [];
  const check = (path: string) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    const rel = relative(home, path).split("/");
    const isCheckoutTop = (rel[0] === "tasks" && rel.length === 3) || (rel[0] === "clones" && rel.length === 2) || (rel[0] === "agents" && rel.length === 2);
    if (isCheckoutTop) return; // a worktree's own mode is git's; its parent is 0700
    const want = st.isDirectory() ? 0o700 : 0o600;
    if ((st.mode & 0o777) !== want) wrong.push(`${relative(home, path) || "."} ${(st.mode & 0o777).toString(8)}`);
  };
  check(home);
  for (const p of walk(home, home)) check(p);
  return wrong;
}

describe.each(DATABASES)("SEC-6 secrets never reach disk in clear (%s)", (kind) => {
  let srv: TestServer | undefined;
  const repos: TestRepo[] = [];
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
    for (const r of repos.splice(0)) await r.cleanup();
  });

  it("SEC-6 after a session with the web page open (cookie from ?token=) and a ?token= socket: no token in any file under GROVE_HOME; files 0600, directories 0700", async () => {
    srv = await startTestServer(kind, undefined, { GROVE_AUTH_TOKEN: TOKEN, GROVE_LOG_LEVEL: "debug" });
    const repo = await makeRepo();
    repos.push(repo);
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      // The token given once in the address: the server sets the cookie and strips it from the URL.
      const first = await rawRequest(srv.url, "GET", `/?token=${TOKEN}&x=1`);
      expect(first.status).toBe(303);
      expect(first.headers.location).toBe("/?x=1");
      expect(String(first.headers["set-cookie"])).toMatch(/^grove_token=[^;]+; HttpOnly; SameSite=Strict; Path=\//);
      await page.goto(`${srv.url}/?token=${TOKEN}`);
      expect(page.url()).toBe(`${srv.url}/`);
      await waitFor(async () => (await page.textContent("#live"))?.includes("live"), "the page's event socket (cookie auth)");
      expect(await page.evaluate(() => document.cookie)).toBe(""); // HttpOnly: the page's script never sees it
      const r = await srv.api("POST", "/repositories", { path: repo.path });
      const t = await srv.api("POST", "/tasks", { title: "Secret", repositories: [{ repositoryId: r.body.id }] });
      // From the page, with only its cookie: the API answers.
      const created = await page.evaluate(async (taskId) => {
        const res = await fetch(`/api/v1/tasks/${taskId}/sessions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ prompt: "say hi" }),
        });
        return { status: res.status, body: (await res.json()) as { id: string } };
      }, t.body.id);
      expect(created.status).toBe(201);
      await page.goto(`${srv.url}/tasks/${t.body.id}`);
      await waitForSession(srv.api, created.body.id, ["waiting_for_input"]);
      // A CLI-style client may still use ?token= on the socket and a bearer header.
      const ev = await openEvents(srv.url, TOKEN);
      expect((await srv.api("POST", `/sessions/${created.body.id}/prompt`, { prompt: `say ${"bye"}` })).status).toBe(202);
      await waitForSession(srv.api, created.body.id, ["waiting_for_input"]);
      ev.close();
      // Without the cookie, the same request is refused.
      expect((await rawRequest(srv.url, "GET", "/api/v1/tasks")).status).toBe(401);
      expect((await rawRequest(srv.url, "GET", "/api/v1/tasks", { cookie: `grove_token=${TOKEN}` })).status).toBe(200);
    } finally {
      await browser.close();
    }
    await srv.stop();
    const files = walk(srv.home, srv.home).filter((p) => lstatSync(p).isFile());
    const log = readFileSync(join(srv.home, "logs", "server.log"), "utf8");
    expect(log).toContain("token=[redacted]"); // the socket's ?token= request was logged, redacted
    expect(files.some((f) => f.endsWith(".acp.jsonl"))).toBe(true);
    const leaks = files.filter((f) => {
      const text = readFileSync(f).toString("latin1");
      return text.includes(TOKEN) || /token=(?!\[redacted\])[^\s"&]+/.test(text) || /Bearer [A-Za-z0-9._~+/-]+/.test(text);
    });
    expect(leaks.map((f) => relative(srv!.home, f))).toEqual([]);
    expect(wrongModes(srv.home)).toEqual([]);
  });
});

describe("SEC-6 an existing GROVE_HOME is tightened at start-up", () => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  it("SEC-6 a 0755 home with 0644 database, logs and runner id is 0700/0600 after start", async () => {
    const db = await freshDatabase("sqlite");
    chmodSync(db.home, 0o755);
    mkdirSync(join(db.home, "logs"), { mode: 0o755 });
    writeFileSync(join(db.home, "logs", "old.acp.jsonl"), "{}\n", { mode: 0o644 });
    writeFileSync(join(db.home, "logs", "server.log"), "", { mode: 0o644 });
    writeFileSync(join(db.home, "grove.db"), "", { mode: 0o644 });
    writeFileSync(join(db.home, "runner-id"), "runner_old\n", { mode: 0o644 });
    srv = await startTestServer("sqlite", db);
    await srv.api("GET", "/tasks");
    expect(wrongModes(srv.home)).toEqual([]);
    expect(readdirSync(srv.home)).toEqual(expect.arrayContaining(["grove.db", "grove.db-wal", "grove.db-shm", "logs", "tasks", "clones"]));
  });
});
