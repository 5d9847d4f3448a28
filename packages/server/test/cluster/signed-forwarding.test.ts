import http from "node:http";
import { describe, expect, it } from "vitest";
import { signForward } from "../../src/api/forward-sign.js";
import { makeRepo } from "../fixture/git.js";
import { waitForSession } from "../fixture/server.js";
import { inProcessRunner, sharedDatabase, TEST_CLUSTER_SECRET, type Cleanups } from "./helpers.js";
import { sql } from "./isolated.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A listener standing where the runners row now points: it records every request and relays it to `target`. */
async function recordingRelay(cleanups: Cleanups, target: () => string): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers, body });
      const up = new URL(target());
      const out = http.request({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...headers, host: up.host } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      out.on("error", () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  cleanups.push(() => new Promise((r) => server.close(() => r(undefined))));
  const addr = server.address() as { port: number };
  return { url: `http://127.0.0.1:${addr.port}`, seen };
}

/** Sends a request to a runner as another runner would, with the given headers. */
async function send(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; code: string | undefined }> {
  const r = await fetch(`${url}${path}`, {
    method,
    headers: { accept: "application/json", ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await r.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status: r.status, code };
}

const DROPPED = new Set(["host", "connection", "content-length", "transfer-encoding"]);

describe("SBX-5 runner-to-runner requests are signed, not a bearer (PostgreSQL)", { timeout: 180_000 }, () => {
  const cleanups = cleanupsAfterEach();

  it("SBX-5 a listener at a rewritten runner URL never sees the secret; a replayed forward, a forged x-grove-forwarded-by, a bad body, target, age, sender or route → 401", async () => {
    const { databaseUrl } = await sharedDatabase(cleanups);
    const a = await inProcessRunner(cleanups, databaseUrl, "runner_a");
    const b = await inProcessRunner(cleanups, databaseUrl, "runner_b");
    const reg = await b.api("POST", "/repositories", { path: (await makeRepo()).path });
    expect(reg.status).toBe(201);
    const task = (await a.api("POST", "/tasks", { title: "Signed", repositories: [{ repositoryId: reg.body.id }] })).body as { id: string };
    const started = await a.api("POST", `/tasks/${task.id}/sessions`, { runnerId: "runner_b", prompt: "write a.txt x" });
    expect(started.status).toBe(201);
    await waitForSession(a.api, started.body.id, ["waiting_for_input"], 60_000);

    // Someone rewrites B's row to point at their listener (which passes everything on to B).
    const relay = await recordingRelay(cleanups, () => b.url);
    await sql(databaseUrl, "UPDATE runners SET url = $1 WHERE id = 'runner_b'", [relay.url]);
    const changes = await a.api("GET", `/tasks/${task.id}/changes`);
    expect(changes.status).toBe(200);
    const prompt = await a.api("POST", `/sessions/${started.body.id}/prompt`, { prompt: "write b.txt y" });
    expect(prompt.status).toBe(202);
    await waitForSession(a.api, started.body.id, ["waiting_for_input"], 60_000);
    expect(relay.seen.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(relay.seen)).not.toContain(TEST_CLUSTER_SECRET);
    const forward = relay.seen.find((s) => s.method === "POST" && s.url.endsWith("/prompt"))!;
    expect(forward.headers).toMatchObject({
      "x-grove-forwarded-by": "runner_a",
      "x-grove-forward-target": "runner_b",
      "x-grove-forward-signature": expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(forward.headers["x-grove-cluster-secret"]).toBeUndefined();

    // Replayed straight to B: its nonce was used.
    const replayHeaders = Object.fromEntries(Object.entries(forward.headers).filter(([k]) => !DROPPED.has(k)));
    expect(await send(b.url, forward.method, forward.url, replayHeaders, forward.body)).toEqual({ status: 401, code: "unauthorized" });
    const get = relay.seen.find((s) => s.method === "GET")!;
    expect(await send(b.url, "GET", get.url, Object.fromEntries(Object.entries(get.headers).filter(([k]) => !DROPPED.has(k))))).toEqual({
      status: 401,
      code: "unauthorized",
    });

    const path = `/api/v1/tasks/${task.id}/changes`;
    const signed = (over: Partial<Parameters<typeof signForward>[1]> = {}, secret = TEST_CLUSTER_SECRET) =>
      signForward(secret, { method: "GET", path, body: "", from: "runner_a", target: "runner_b", person: false, ...over });
    const refusals: [string, Promise<{ status: number; code: string | undefined }>][] = [
      ["forged x-grove-forwarded-by alone", send(b.url, "GET", path, { "x-grove-forwarded-by": "runner_a" })],
      ["the secret itself as a header", send(b.url, "GET", path, { "x-grove-forwarded-by": "runner_a", "x-grove-cluster-secret": TEST_CLUSTER_SECRET })],
      ["signed with another secret", send(b.url, "GET", path, signed({}, "another-secret-0123456789abcdef"))],
      ["signed for another runner", send(b.url, "GET", path, signed({ target: "runner_a" }))],
      ["signed for another path", send(b.url, "GET", path, signed({ path: "/api/v1/tasks" }))],
      ["older than the skew", send(b.url, "GET", path, signed({ timestamp: Date.now() - 60_000 }))],
      ["from a runner nobody registered", send(b.url, "GET", path, signed({ from: "runner_ghost" }))],
      [
        "a route no runner forwards",
        send(b.url, "POST", "/api/v1/repositories", signed({ method: "POST", path: "/api/v1/repositories", body: '{"path":"/tmp"}' }), '{"path":"/tmp"}'),
      ],
      [
        "a body other than the signed one",
        send(
          b.url,
          "POST",
          `/api/v1/sessions/${started.body.id}/prompt`,
          signed({ method: "POST", path: `/api/v1/sessions/${started.body.id}/prompt`, body: '{"prompt":"say a"}' }),
          '{"prompt":"say b"}',
        ),
      ],
    ];
    for (const [what, p] of refusals) expect({ what, ...(await p) }).toEqual({ what, status: 401, code: "unauthorized" });

    // The same request, correctly signed, is accepted once (the test holds the secret, as a runner does).
    const once = signed();
    expect((await send(b.url, "GET", path, once)).status).toBe(200);
    expect((await send(b.url, "GET", path, once)).status).toBe(401);
    // Person-only routes: a signed forward says whether the person sent it to the first runner.
    const mode = `/api/v1/sessions/${started.body.id}/mode`;
    const notPerson = signed({ method: "POST", path: mode, body: '{"modeId":"auto"}' });
    expect(await send(b.url, "POST", mode, notPerson, '{"modeId":"auto"}')).toEqual({ status: 403, code: "person_required" });
    const viaA = await a.api("POST", `/sessions/${started.body.id}/mode`, { modeId: "auto" });
    expect(viaA.status).toBe(200);
    expect(viaA.body.modes.currentModeId).toBe("auto");
  });
});
