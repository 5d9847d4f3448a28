import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { openEvents, startTestServer, waitForSession, type TestServer } from "../fixture/server.js";

interface LogLine {
  level: number;
  msg: string;
  req?: unknown;
  res?: unknown;
  statusCode?: number;
}

/**
 * "Ten minutes of light use", compressed: what the web page polls and fetches in that time
 * (about one list refresh every 2 s per panel), a live event stream, and a few prompts.
 */
async function lightUse(srv: TestServer, repo: TestRepo): Promise<void> {
  const events = await openEvents(srv.url);
  const r = await srv.api("POST", "/repositories", { path: repo.path });
  const t = await srv.api("POST", "/tasks", { title: "light use", repositories: [{ repositoryId: r.body.id }] });
  const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, { agent: "scripted", prompt: "say hi" });
  await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
  for (const prompt of ["write a.txt one", "say two", "commit three"]) {
    await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
  }
  for (let i = 0; i < 60; i++) {
    await Promise.all([
      srv.api("GET", "/tasks"),
      srv.api("GET", "/repositories"),
      srv.api("GET", `/tasks/${t.body.id}/sessions`),
      srv.api("GET", `/sessions/${s.body.id}/messages`),
      srv.api("GET", `/tasks/${t.body.id}/changes`),
      srv.api("GET", "/cleanup-jobs"),
      srv.api("GET", "/tasks/task_missing"),
      fetch(`${srv.url}/`).then((x) => x.text()),
    ]);
  }
  events.close();
}

function logLines(home: string): LogLine[] {
  return readFileSync(join(home, "logs", "server.log"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogLine);
}

// Fastify's own request lines carry req/res; ours (debug) method, url and statusCode.
const isRequestLine = (l: LogLine) =>
  l.req !== undefined || l.res !== undefined || l.statusCode !== undefined || /^(incoming request|request completed|request)$/.test(l.msg);

describe("logs keep lifecycle events at info, requests only at debug", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  for (const level of ["info", "debug"] as const) {
    it(`light use at ${level} ${level === "info" ? "writes no per-request line" : "writes one line per request"}`, async () => {
      const repo = await makeRepo();
      const srv = await startTestServer("sqlite", undefined, { GROVE_LOG_LEVEL: level });
      cleanups.push(
        () => srv.close(),
        () => repo.cleanup(),
      );
      await lightUse(srv, repo);
      await srv.stop();
      const lines = logLines(srv.home);
      expect(lines.some((l) => l.msg === "listening")).toBe(true);
      expect(lines.some((l) => l.msg === "agent started")).toBe(true);
      const requests = lines.filter(isRequestLine);
      if (level === "info") expect(requests).toEqual([]);
      else expect(requests.length).toBeGreaterThan(400);
      // About 500 requests and four agent turns: 51 s beside another test run on a 2-core
      // machine, close to the default 60 s. This bound is for a hang, not for speed.
    }, 180_000);
  }
});
