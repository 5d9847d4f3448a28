import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { freshDatabase } from "../fixture/db.js";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { apiClient, spawnServer, startTestServer, type ChildServer, type TestServer } from "../fixture/server.js";

const CLIENTS = 500;
const RSS_LIMIT = 400 * 1024 * 1024;

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) * 1024;
}

/** A WebSocket client that completes the handshake and then never reads another byte. */
function idleClient(url: string): Promise<{ socket: Socket; closedByServer: Promise<void> }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname);
    const key = Buffer.from(Array.from({ length: 16 }, (_, i) => i)).toString("base64");
    socket.once("connect", () =>
      socket.write(
        `GET /api/v1/events HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
    socket.once("data", (d: Buffer) => {
      if (!d.toString("latin1").startsWith("HTTP/1.1 101")) return reject(new Error(d.toString("latin1").split("\r\n")[0]));
      socket.pause(); // never read again: the kernel buffers fill, then the server's
      const closedByServer = new Promise<void>((r) => socket.once("close", () => r()));
      socket.on("error", () => undefined);
      resolve({ socket, closedByServer });
    });
    socket.once("error", reject);
  });
}

async function median(xs: number[]): Promise<number> {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

describe("SEC-8 bounded WebSocket resources", () => {
  let child: ChildServer | undefined;
  let srv: TestServer | undefined;
  const repos: TestRepo[] = [];
  afterEach(async () => {
    child?.child.kill("SIGKILL");
    child = undefined;
    await srv?.close();
    srv = undefined;
    for (const r of repos.splice(0)) await r.cleanup();
  });

  it(`SEC-8 ${CLIENTS} idle WebSocket clients that never read: RSS stays under 400 MiB, /health answers within 100 ms at the median, the slow clients are dropped`, async () => {
    const db = await freshDatabase("sqlite");
    child = await spawnServer({ GROVE_HOME: db.home, GROVE_MAX_WS_CLIENTS: String(CLIENTS + 10), GROVE_LOG_LEVEL: "warn" });
    const api = apiClient(child.url);
    const repo = await makeRepo();
    repos.push(repo);
    const r = await api("POST", "/repositories", { path: repo.path });
    const clients: Awaited<ReturnType<typeof idleClient>>[] = [];
    for (let i = 0; i < CLIENTS; i++) clients.push(await idleClient(child.url));
    const pid = child.child.pid!;
    const baseline = rssOf(pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
    const health: number[] = [];
    try {
      // ~95 KB per frame to every client: ~7.6 MB per client (beyond what the kernel's socket
      // buffers take), ~3.8 GB in all if nothing bounded it.
      const description = "d".repeat(95_000);
      for (let i = 0; i < 80; i++) {
        const res = await api("POST", "/tasks", { title: `flood ${i}`, description, repositories: [{ repositoryId: r.body.id }] });
        expect(res.status).toBe(201);
        if (i % 5 === 0) {
          const t0 = performance.now();
          expect((await api("GET", "/health")).status).toBe(200);
          health.push(performance.now() - t0);
        }
      }
      peak = Math.max(peak, rssOf(pid));
    } finally {
      clearInterval(sampler);
    }
    // A paused socket never notices its end: drain them now and count those the server closed.
    let dropped = 0;
    for (const c of clients) {
      void c.closedByServer.then(() => dropped++);
      c.socket.on("data", () => undefined).resume();
    }
    // Each socket first reads what the kernel still holds for it (up to a few MB), then its end.
    const until = Date.now() + 90_000;
    while (dropped < CLIENTS && Date.now() < until) await new Promise((res) => setTimeout(res, 250));
    for (const c of clients) c.socket.destroy();
    const med = await median(health);
    console.log(
      `ws flood: ${dropped}/${CLIENTS} slow clients dropped, baseline RSS ${(baseline / 2 ** 20).toFixed(0)} MiB, peak ${(peak / 2 ** 20).toFixed(0)} MiB, /health median ${med.toFixed(1)} ms over ${health.length}`,
    );
    expect(dropped, "every client that never reads is dropped by the server").toBe(CLIENTS);
    expect(peak).toBeLessThan(RSS_LIMIT);
    expect(med).toBeLessThan(100);
    await db.drop();
  }, 240_000);

  it("SEC-8 a client that leaves more than its limit unread is dropped, the others keep their stream", async () => {
    srv = await startTestServer("sqlite");
    const repo = await makeRepo();
    repos.push(repo);
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    const idle = await Promise.all(Array.from({ length: 20 }, () => idleClient(srv!.url)));
    const reader = new WebSocket(`${srv.url.replace(/^http/, "ws")}/api/v1/events`);
    let read = 0;
    // Counts the task.created frames this test causes (other frames, e.g. task.summary, follow them).
    reader.on("message", (d) => {
      if ((JSON.parse(d.toString()) as { type: string }).type === "task.created") read++;
    });
    await new Promise((res) => reader.once("open", res));
    // 80 frames of ~95 KB: more than the kernel's socket buffers and the 1 MiB limit hold.
    for (let i = 0; i < 80; i++)
      await srv.api("POST", "/tasks", { title: `slow ${i}`, description: "d".repeat(95_000), repositories: [{ repositoryId: r.body.id }] });
    let dropped = 0;
    for (const c of idle) {
      void c.closedByServer.then(() => dropped++);
      c.socket.on("data", () => undefined).resume();
    }
    const until = Date.now() + 30_000;
    while ((dropped < idle.length || read < 80) && Date.now() < until) await new Promise((res) => setTimeout(res, 100));
    expect(dropped).toBe(idle.length);
    expect(read).toBe(80);
    expect(reader.readyState).toBe(WebSocket.OPEN);
    reader.close();
  }, 120_000);

  it("SEC-8 GROVE_MAX_WS_CLIENTS caps concurrent sockets: one more is refused with 503 too_many_clients; a freed slot is reusable", async () => {
    srv = await startTestServer("sqlite", undefined, { GROVE_MAX_WS_CLIENTS: "3" });
    const url = `${srv.url.replace(/^http/, "ws")}/api/v1/events`;
    const open = (): Promise<WebSocket | number> =>
      new Promise((resolve) => {
        const ws = new WebSocket(url);
        ws.once("open", () => resolve(ws));
        ws.once("unexpected-response", (_q, res) => {
          let text = "";
          res.on("data", (d: Buffer) => (text += d.toString()));
          res.on("end", () => {
            expect(JSON.parse(text).error.code).toBe("too_many_clients");
            resolve(res.statusCode ?? 0);
          });
        });
      });
    const held = [await open(), await open(), await open()];
    expect(held.every((w) => w instanceof WebSocket)).toBe(true);
    expect(await open()).toBe(503);
    expect((await srv.api("GET", "/health")).status).toBe(200); // plain HTTP is not counted
    const first = held[0] as WebSocket;
    await new Promise<void>((res) => {
      first.once("close", () => res());
      first.close();
    });
    const again = await open();
    expect(again).toBeInstanceOf(WebSocket);
    for (const w of [...held.slice(1), again]) (w as WebSocket).close();
  });
});
