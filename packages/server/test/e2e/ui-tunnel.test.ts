import { createServer, request, type IncomingMessage, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo } from "../fixture/git.js";
import type { TestServer } from "../fixture/server.js";
import { axeSerious, eventually, launchBrowser, serverWithCarefulAgent, shot } from "./ui-harness.js";

/**
 * WEB-50: the person reaches Grove from a phone through a tunnel they run (Tailscale, cloudflared,
 * `ssh -R`, …; see docs/operators/remote-access.md). Such a tunnel takes the phone's requests for
 * its public name on the default port and hands them, Host header unchanged, to the server on
 * loopback. Here a loopback HTTP proxy plays the tunnel's public end: Chromium reaches
 * `http://grove-phone.test/` (default port: the Host header carries no port) only through it.
 */
const TOKEN = "phone-token-of-24-chars!";
const PUBLIC = "http://grove-phone.test";

/** A forward proxy to one server: absolute-form requests, Upgrade requests and CONNECT tunnels. */
function tunnelTo(serverPort: number): Promise<{ proxy: Server; port: number; hosts: string[] }> {
  const hosts: string[] = [];
  const proxy = createServer((req, res) => {
    const url = new URL(req.url ?? "/", PUBLIC);
    // Only the test's names go through: Chromium's own background requests get nowhere.
    if (!url.hostname.endsWith(".test")) return void res.writeHead(502).end();
    hosts.push(req.headers.host ?? "");
    const upstream = request({ host: "127.0.0.1", port: serverPort, method: req.method, path: url.pathname + url.search, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  const splice = (client: Socket, head: Buffer, preamble: string) => {
    const upstream = connect(serverPort, "127.0.0.1", () => {
      upstream.write(preamble);
      if (head.length > 0) upstream.write(head);
      client.pipe(upstream).pipe(client);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  };
  proxy.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    if (!(req.url ?? "").split(":")[0]!.endsWith(".test")) return void client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    splice(client, head, "");
  });
  proxy.on("upgrade", (req: IncomingMessage, client: Socket, head: Buffer) => {
    const url = new URL(req.url ?? "/", PUBLIC);
    hosts.push(req.headers.host ?? "");
    const lines = [`${req.method} ${url.pathname}${url.search} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    splice(client, head, lines.join("\r\n") + "\r\n\r\n");
  });
  return new Promise((resolve) => proxy.listen(0, "127.0.0.1", () => resolve({ proxy, port: (proxy.address() as { port: number }).port, hosts })));
}

describe("WEB-50 remote access from a phone through a tunnel the person runs (Chromium, token cookie)", () => {
  let srv: TestServer | undefined;
  let tunnel: Awaited<ReturnType<typeof tunnelTo>> | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    srv = await serverWithCarefulAgent({ GROVE_AUTH_TOKEN: TOKEN, GROVE_ALLOWED_HOSTS: "grove-phone.test" });
    tunnel = await tunnelTo(Number(new URL(srv.url).port));
    browser = await launchBrowser(undefined, { proxy: `http://127.0.0.1:${tunnel.port}` });
  });
  afterAll(async () => {
    await browser?.close();
    tunnel?.proxy.close();
    await srv?.close();
  });

  it("WEB-50 the tunnel's name with the token once: cookie, live board, the permission answered on the phone layout", { timeout: 180_000 }, async () => {
    const page = await browser!.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    page.setDefaultTimeout(30_000);
    const sockets: string[] = [];
    page.on("websocket", (ws) => sockets.push(ws.url()));

    // Without the token the page says what it needs, and nothing of the person's work shows.
    await page.goto(`${PUBLIC}/`);
    await eventually(() => page.locator("#status").getAttribute("data-error-code")).toBe("unauthorized");

    // Once with ?token=: the HttpOnly cookie, the address without the token, the live stream through the tunnel.
    await page.goto(`${PUBLIC}/?token=${encodeURIComponent(TOKEN)}`);
    expect(page.url()).toBe(`${PUBLIC}/`);
    await eventually(() => page.locator("#live").textContent()).toBe("live");
    const cookies = await page.context().cookies(PUBLIC);
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite }))).toEqual([
      { name: "grove_token", httpOnly: true, sameSite: "Strict" },
    ]);
    expect(sockets.length).toBeGreaterThan(0);
    expect(sockets.every((u) => u.startsWith("ws://grove-phone.test/") && !u.includes(TOKEN))).toBe(true);
    expect(tunnel!.hosts.length).toBeGreaterThan(0);
    expect(new Set(tunnel!.hosts)).toEqual(new Set(["grove-phone.test"]));

    // A session started at the desk asks permission; the phone answers it from the task page.
    const repo = await makeRepo({ name: "phone-repo" });
    const added = await srv!.api("POST", "/repositories", { path: repo.path });
    const task = await srv!.api("POST", "/tasks", { title: "Answer from the phone", repositories: [{ repositoryId: added.body.id }] });
    await page.locator(`.task-card[data-task-id="${task.body.id}"]`).waitFor();
    await srv!.api("POST", `/tasks/${task.body.id}/sessions`, {
      agent: "careful",
      prompt: "ask May I write notes.md?\nwrite notes.md from the phone\nsay wrote **the notes**",
    });
    await page.locator(`.task-card[data-task-id="${task.body.id}"] a`).first().click();
    const ask = page.getByRole("group", { name: "Permission request" });
    await ask.getByText("May I write notes.md?").waitFor({ timeout: 60_000 });
    await ask.scrollIntoViewIfNeeded();
    await shot(page, "tunnel-phone-permission", false);
    expect(await axeSerious(page)).toEqual([]);
    await ask.getByRole("button", { name: "Allow", exact: true }).click();
    await page.locator(".session-panel .msg.role-agent", { hasText: "wrote the notes" }).waitFor({ timeout: 60_000 });
    await eventually(() => page.locator(".session-panel .session-state").getAttribute("data-state"), 60_000).toBe("waiting_for_input");
    await page.close();
  });

  it("WEB-50 a Host name the server was not told about is refused through the same tunnel, token or not", async () => {
    const page = await browser!.newPage({ viewport: { width: 390, height: 844 } });
    const res = await page.goto(`http://other-name.test/?token=${encodeURIComponent(TOKEN)}`);
    expect(res?.status()).toBe(403);
    expect(await page.content()).toContain("host_not_allowed");
    await page.close();
  });
});
