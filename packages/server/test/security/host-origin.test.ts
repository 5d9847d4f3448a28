import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { makeRepo, tempDir } from "../fixture/git.js";
import { startTestServer, waitFor, waitForSession, type TestServer } from "../fixture/server.js";
import { hostOf, rawRequest } from "./helpers.js";

const TOKEN = "a-token-of-24-characters";
const STATE_CHANGING = new Set(["POST", "PATCH", "PUT", "DELETE"]);

/** Every registered API route (the live route table), plus the events socket's path, the page and unknown paths. */
function everyRoute(srv: TestServer): { method: string; path: string }[] {
  const api = srv.server.routes.map((r) => ({ method: r.method.toUpperCase(), path: "/api/v1" + r.path.replace(/\{[A-Za-z]+\}/g, "x") }));
  expect(api.some((r) => r.path === "/api/v1/events")).toBe(true);
  return [
    ...api,
    { method: "GET", path: "/" },
    { method: "GET", path: "/index.html" },
    { method: "GET", path: "/tasks/x" },
    { method: "GET", path: "/api/v1/no-such-route" },
  ];
}

function send(srv: TestServer, r: { method: string; path: string }, headers: Record<string, string>) {
  const h = { ...headers, ...(STATE_CHANGING.has(r.method) ? { "content-type": "application/json" } : {}) };
  return rawRequest(srv.url, r.method, r.path, h, STATE_CHANGING.has(r.method) ? "{}" : undefined);
}

/** Opens a WebSocket with forged headers; resolves with "open" or the HTTP status of the refusal. */
function wsAttempt(url: string, headers: Record<string, string>): Promise<string | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace(/^http/, "ws")}/api/v1/events`, { headers });
    ws.once("open", () => {
      ws.close();
      resolve("open");
    });
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once("error", () => resolve("error"));
  });
}

describe("SEC-5 Host and Origin allow-list, JSON-only state changes", () => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  it.each([
    ["without a token", {}],
    ["with a token", { GROVE_AUTH_TOKEN: TOKEN }],
  ])("SEC-5 Host evil.example:PORT → 403 host_not_allowed on every route, the events socket and the page (%s)", async (_label, env) => {
    srv = await startTestServer("sqlite", undefined, env as Record<string, string>);
    expect(existsSync(join(import.meta.dirname, "../../../web/dist/index.html")), "the web page must be built for this test").toBe(true);
    const port = new URL(srv.url).port;
    const auth: Record<string, string> = "GROVE_AUTH_TOKEN" in env ? { authorization: `Bearer ${TOKEN}` } : {};
    const refused: string[] = [];
    for (const r of everyRoute(srv)) {
      const res = await send(srv, r, { host: `evil.example:${port}`, ...auth });
      if (res.status !== 403 || res.body?.error?.code !== "host_not_allowed") refused.push(`${r.method} ${r.path} → ${res.status} ${res.text.slice(0, 80)}`);
    }
    expect(refused).toEqual([]);
    expect(await wsAttempt(srv.url, { host: `evil.example:${port}`, ...auth })).toBe(403);
    // The same requests with this server's own names reach their handlers.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      expect((await rawRequest(srv.url, "GET", "/api/v1/health", { host, ...auth })).status, host).toBe(200);
    }
    expect((await rawRequest(srv.url, "GET", "/", { host: `localhost:${port}` })).status).toBe(200);
    expect(await wsAttempt(srv.url, { ...auth })).toBe("open");
    // A right name on the wrong port, or no Host at all, is refused too.
    expect((await rawRequest(srv.url, "GET", "/api/v1/health", { host: "127.0.0.1:1" })).status).toBe(403);
    expect((await rawRequest(srv.url, "GET", "/api/v1/health", { host: "" })).status).toBe(403);
  });

  it("SEC-5 GROVE_ALLOWED_HOSTS and GROVE_ALLOWED_ORIGINS extend the lists; nothing else does", async () => {
    srv = await startTestServer("sqlite", undefined, {
      GROVE_AUTH_TOKEN: TOKEN,
      GROVE_ALLOWED_HOSTS: "grove.test, box.lan:8443",
      GROVE_ALLOWED_ORIGINS: "https://grove.example",
    });
    const port = new URL(srv.url).port;
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await rawRequest(srv.url, "GET", "/api/v1/health", { host: `grove.test:${port}`, ...auth })).status).toBe(200);
    // WEB-50: a tunnel on HTTPS's default port passes the bare name on; another port is still refused.
    expect((await rawRequest(srv.url, "GET", "/api/v1/health", { host: "grove.test", ...auth })).status).toBe(200);
    expect((await rawRequest(srv.url, "GET", "/api/v1/health", { host: "grove.test:1", ...auth })).status).toBe(403);
    expect((await rawRequest(srv.url, "GET", "/api/v1/health", { host: "box.lan:8443", ...auth })).status).toBe(200);
    expect((await rawRequest(srv.url, "GET", "/api/v1/health", { host: `box.lan:${port}`, ...auth })).status).toBe(403);
    expect((await rawRequest(srv.url, "GET", "/api/v1/health", { host: "box.lan", ...auth })).status).toBe(403);
    expect((await rawRequest(srv.url, "GET", "/api/v1/health", { origin: "https://grove.example", ...auth })).status).toBe(200);
    expect((await rawRequest(srv.url, "GET", "/api/v1/health", { origin: "https://grove.example.evil", ...auth })).status).toBe(403);
  });

  it("SEC-5 a foreign Origin → 403 origin_not_allowed on every route and the socket; the server's own origin passes", async () => {
    srv = await startTestServer("sqlite");
    const port = new URL(srv.url).port;
    const foreign = [`http://127.0.0.1:${Number(port) === 65535 ? 1 : Number(port) + 1}`, `http://localhost:${port}`, "null", `https://evil.example`];
    const wrong: string[] = [];
    for (const origin of foreign) {
      for (const r of everyRoute(srv)) {
        const res = await send(srv, r, { origin });
        if (res.status !== 403 || res.body?.error?.code !== "origin_not_allowed") wrong.push(`${origin} ${r.method} ${r.path} → ${res.status}`);
      }
      expect(await wsAttempt(srv.url, { origin }), origin).toBe(403);
    }
    expect(wrong).toEqual([]);
    expect((await rawRequest(srv.url, "GET", "/api/v1/health", { origin: `http://${hostOf(srv.url)}` })).status).toBe(200);
    expect(await wsAttempt(srv.url, { origin: `http://${hostOf(srv.url)}` })).toBe("open");
  });

  it("SEC-5 every POST/PATCH/DELETE without Content-Type: application/json → 415 unsupported_media_type, body or not", async () => {
    srv = await startTestServer("sqlite");
    const repo = await makeRepo();
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    const t = await srv.api("POST", "/tasks", { title: "Keep me", repositories: [{ repositoryId: r.body.id }] });
    const routes = srv.server.routes.filter((x) => STATE_CHANGING.has(x.method.toUpperCase()));
    expect(routes.length).toBeGreaterThan(10);
    const wrong: string[] = [];
    for (const route of routes) {
      const path = "/api/v1" + route.path.replace("{id}", t.body.id).replace(/\{[A-Za-z]+\}/g, "x");
      for (const [ct, body] of [
        [undefined, undefined],
        ["text/plain", "{}"],
        ["application/x-www-form-urlencoded", "a=1"],
        ["multipart/form-data; boundary=x", "--x--"],
        ["application/jsonx", "{}"],
      ] as const) {
        const res = await rawRequest(srv.url, route.method.toUpperCase(), path, ct ? { "content-type": ct } : {}, body);
        if (res.status !== 415 || res.body?.error?.code !== "unsupported_media_type") wrong.push(`${route.method} ${path} ${ct} → ${res.status}`);
      }
    }
    expect(wrong).toEqual([]);
    const task = await srv.api("GET", `/tasks/${t.body.id}`);
    expect(task.body.archivedAt).toBeNull();
    expect((await srv.api("GET", `/tasks/${t.body.id}/sessions`)).body).toEqual([]);
    // Body-less with the header (what the CLI and the page send) is accepted.
    const archive = await rawRequest(srv.url, "POST", `/api/v1/tasks/${t.body.id}/archive`, { "content-type": "application/json; charset=utf-8" });
    expect(archive.status).toBe(202);
    await repo.cleanup();
  });
});

describe.each(ONE_DATABASE)("SEC-5 DNS rebinding (%s)", (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  it("SEC-5 a rebinding chain (repository with a setupScript → task → session) under a foreign Host creates nothing and runs nothing; under the server's own name it does", async () => {
    srv = await startTestServer(kind);
    const repo = await makeRepo();
    const out = await tempDir("grove-rebind-");
    const marker = join(out, "pwned");
    const chain = async (headers: Record<string, string>) => {
      const json = { ...headers, "content-type": "application/json" };
      const r = await rawRequest(srv!.url, "POST", "/api/v1/repositories", json, JSON.stringify({ path: repo.path, setupScript: `id > ${marker}` }));
      const t = await rawRequest(
        srv!.url,
        "POST",
        "/api/v1/tasks",
        json,
        JSON.stringify({ title: "Rebound", repositories: [{ repositoryId: r.body?.id ?? "repo_x" }] }),
      );
      const s = await rawRequest(srv!.url, "POST", `/api/v1/tasks/${t.body?.id ?? "task_x"}/sessions`, json, "{}");
      return [r, t, s];
    };
    const port = new URL(srv.url).port;
    for (const res of await chain({ host: `evil.example:${port}` })) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("host_not_allowed");
    }
    expect((await srv.api("GET", "/repositories")).body).toEqual([]);
    expect((await srv.api("GET", "/tasks")).body).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(marker)).toBe(false);

    const [, , s] = await chain({});
    expect(s!.status).toBe(201);
    await waitForSession(srv.api, s!.body.id, ["waiting_for_input", "completed", "failed"]);
    await waitFor(() => existsSync(marker), "the setup script of the allowed chain");
    await repo.cleanup();
    await rm(out, { recursive: true, force: true });
  });
});
