import { writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { allowed, parseAllowEntry } from "../../src/domain/allow-list.js";
import { ONE_DATABASE, freshDatabase } from "../fixture/db.js";
import { repoAndTask } from "../fixture/scenario.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { blockedNotes, runResults, turn } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

describe("SBX-2 allow-list entries", () => {
  it("SBX-2: host, host:port, *.domain and [v6]:port match as written; names compare case-insensitively", () => {
    const list = ["api.example.com:443", "*.example.org", "127.0.0.1:8080", "[::1]:9000", "plain.test"].map(parseAllowEntry);
    expect(allowed(list, "API.example.com", 443)).toBe(true);
    expect(allowed(list, "api.example.com", 80)).toBe(false);
    expect(allowed(list, "a.b.example.org", 1)).toBe(true);
    expect(allowed(list, "example.org", 443)).toBe(false);
    expect(allowed(list, "evil-example.org", 443)).toBe(false);
    expect(allowed(list, "127.0.0.1", 8080)).toBe(true);
    expect(allowed(list, "127.0.0.1", 8081)).toBe(false);
    expect(allowed(list, "::1", 9000)).toBe(true);
    expect(allowed(list, "plain.test", 12345)).toBe(true);
    expect(() => parseAllowEntry("http://x")).toThrow("not a host");
    expect(() => parseAllowEntry("x:0")).toThrow("not a port");
  });
});

describe.each(ONE_DATABASE)("SBX-2 egress through Grove's proxy only (%s)", (kind) => {
  const cleanups = cleanupsAfterEach();

  /** A fake API on the host's loopback, as the model APIs of the interop tests are. */
  async function fakeApi(): Promise<{ port: number; hits: string[] }> {
    const hits: string[] = [];
    const server: Server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      // As a streaming model API answers (its SSE responses say keep-alive whatever was asked).
      res.setHeader("connection", "keep-alive");
      res.end(`fake-api says hi to ${req.url}\n`);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    cleanups.push(() => new Promise((r) => server.close(r)));
    return { port: (server.address() as { port: number }).port, hits };
  }

  async function serverAllowing(network: string[]): Promise<TestServer> {
    const db = await freshDatabase(kind);
    // The built-in scripted profile, extended with an allow-list (the rest of it kept).
    writeFileSync(join(db.home, "agents.json"), JSON.stringify({ agents: [{ name: "scripted", sandbox: { network } }] }));
    const srv = await startTestServer(kind, db);
    cleanups.push(async () => {
      await srv.close();
      await db.drop();
      await rm(db.home, { recursive: true, force: true });
    });
    return srv;
  }

  it("SBX-2: an allow-listed host is reached through the proxy (plain HTTP and CONNECT); Grove's own port stays refused even when its address is listed", async () => {
    const api = await fakeApi();
    // Any port of 127.0.0.1: that includes Grove's, which the proxy refuses whatever the list says.
    const srv = await serverAllowing(["127.0.0.1"]);
    const { repo, task } = await repoAndTask(srv);
    cleanups.push(() => repo.cleanup());
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const msgs = await turn(
      srv,
      s.body.id,
      [
        `run curl -sS -f -m 10 http://127.0.0.1:${api.port}/plain`,
        `run curl -sS -f -m 10 --proxytunnel http://127.0.0.1:${api.port}/tunnel`,
        `run curl -sS -f -m 10 ${srv.url}/api/v1/health`,
        `run curl -sS -f -m 10 --proxytunnel ${srv.url}/api/v1/health`,
        `run curl -sS -f -m 10 http://localhost:${new URL(srv.url).port}/api/v1/health`,
      ].join("\n"),
    );
    const r = runResults(msgs);
    expect(r.slice(0, 2)).toEqual([
      { code: 0, output: "fake-api says hi to /plain" },
      { code: 0, output: "fake-api says hi to /tunnel" },
    ]);
    expect(api.hits).toEqual(["GET /plain", "GET /tunnel"]);
    for (const x of r.slice(2)) expect(x.code).not.toBe(0);
    const port = new URL(srv.url).port;
    expect(blockedNotes(msgs)).toEqual([`127.0.0.1:${port}`, `127.0.0.1:${port}`, `localhost:${port}`]);
    expect((await srv.api("GET", `/sessions/${s.body.id}`)).body.blockedConnections).toBe(3);
  });

  it("SBX-2: plain HTTP on one kept-alive proxy connection is checked request by request: two requests to a listed host both arrive, a third to a host off the list is refused with a note", async () => {
    const api = await fakeApi();
    const srv = await serverAllowing([`127.0.0.1:${api.port}`]);
    const { repo, task } = await repoAndTask(srv);
    cleanups.push(() => repo.cleanup());
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const base = `http://127.0.0.1:${api.port}`;
    // One curl, three URLs: curl reuses its connection to the proxy for each of them.
    const msgs = await turn(srv, s.body.id, `run curl -sS -m 10 -w '[%{http_code} %{num_connects}]\\n' ${base}/one ${base}/two http://example.com/three`);
    const [r] = runResults(msgs);
    expect(r!.output.split("\n")).toEqual([
      "fake-api says hi to /one",
      "[200 1]",
      "fake-api says hi to /two",
      "[200 0]",
      "blocked by Grove's sandbox: example.com:80 is not on this agent's allow-list",
      "[403 0]",
    ]);
    expect(api.hits).toEqual(["GET /one", "GET /two"]);
    expect(blockedNotes(msgs)).toEqual(["example.com:80"]);
  });

  it("SBX-2: with no allow-list entry for it a host is refused before any DNS look-up and the refusal is a transcript note", async () => {
    const api = await fakeApi();
    const srv = await serverAllowing([]);
    const { repo, task } = await repoAndTask(srv);
    cleanups.push(() => repo.cleanup());
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { prompt: "" });
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const msgs = await turn(
      srv,
      s.body.id,
      [`run curl -sS -f -m 10 http://127.0.0.1:${api.port}/x`, "run curl -sS -f -m 10 https://registry.npmjs.org/"].join("\n"),
    );
    expect(runResults(msgs).map((x) => x.code === 0)).toEqual([false, false]);
    expect(api.hits).toEqual([]);
    expect(blockedNotes(msgs)).toEqual([`127.0.0.1:${api.port}`, "registry.npmjs.org:443"]);
  });
});
