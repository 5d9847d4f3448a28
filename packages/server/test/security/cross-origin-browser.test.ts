/// <reference lib="dom" />
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { launchBrowser } from "../e2e/ui-harness.js";

// Browser globals used inside page.evaluate (this package is type-checked without the DOM library).
declare const document: any;
declare const location: { host: string };

/**
 * Everything a hostile page can try against Grove at `grove` (an origin), run inside the page:
 * read the event stream, read the API, and change state with requests that need no CORS
 * preflight (no-cors fetch, text/plain, body-less, form posts). Returns what it observed.
 */
async function attack(page: Page, grove: string, taskId: string): Promise<{ ws: string; frames: number; read: string }> {
  return page.evaluate(
    async ({ grove, taskId }) => {
      const ws = await new Promise<{ ws: string; frames: number }>((resolve) => {
        const sock = new WebSocket(`${grove.replace(/^http/, "ws")}/api/v1/events`);
        let frames = 0;
        sock.onmessage = () => frames++;
        sock.onopen = () => setTimeout(() => resolve({ ws: "open", frames }), 1500);
        sock.onerror = () => resolve({ ws: "error", frames });
        sock.onclose = () => resolve({ ws: "closed", frames });
      });
      let read = "refused";
      try {
        const r = await fetch(`${grove}/api/v1/tasks`);
        read = `read ${r.status} ${(await r.text()).slice(0, 40)}`;
      } catch {
        // CORS: the page cannot read the answer
      }
      const api = `${grove}/api/v1`;
      const attempts: Promise<unknown>[] = [
        fetch(`${api}/tasks/${taskId}/archive`, { method: "POST", mode: "no-cors" }),
        fetch(`${api}/tasks/${taskId}/sessions`, { method: "POST", mode: "no-cors" }),
        fetch(`${api}/tasks/${taskId}/sessions`, {
          method: "POST",
          mode: "no-cors",
          headers: { "content-type": "text/plain" },
          body: JSON.stringify({ prompt: "say pwned" }),
        }),
        fetch(`${api}/tasks`, {
          method: "POST",
          mode: "no-cors",
          headers: { "content-type": "text/plain" },
          body: JSON.stringify({ title: "pwned", repositories: [] }),
        }),
        fetch(`${api}/tasks/${taskId}`, { method: "DELETE", mode: "no-cors" }),
        fetch(`${api}/tasks/${taskId}`, {
          method: "PATCH",
          mode: "cors",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ title: "pwned" }),
        }),
      ].map((p) => p.catch(() => undefined));
      await Promise.all(attempts);
      // Form posts (navigations, no CORS at all), into hidden frames.
      const form = (action: string, enctype: string, fields: Record<string, string>) =>
        new Promise<void>((resolve) => {
          const frame = document.createElement("iframe");
          frame.name = `f${Math.random()}`;
          frame.style.display = "none";
          document.body.appendChild(frame);
          const f = document.createElement("form");
          f.method = "POST";
          f.action = action;
          f.enctype = enctype;
          f.target = frame.name;
          for (const [k, v] of Object.entries(fields)) {
            const input = document.createElement("input");
            input.name = k;
            input.value = v;
            f.appendChild(input);
          }
          document.body.appendChild(f);
          frame.onload = () => resolve();
          setTimeout(resolve, 3000);
          f.submit();
        });
      await form(`${api}/tasks/${taskId}/archive`, "text/plain", { '{"a":"': '"}' });
      await form(`${api}/tasks/${taskId}/sessions`, "application/x-www-form-urlencoded", { prompt: "say pwned" });
      await form(`${api}/tasks`, "multipart/form-data", { title: "pwned" });
      return { ...ws, read };
    },
    { grove, taskId },
  );
}

describe("SEC-5 a page of another origin in real Chromium can neither read nor change anything", () => {
  let srv: TestServer;
  let repo: TestRepo;
  let browser: Browser;
  let evil: Server;
  let evilUrl: string;
  let repositoryId: string;

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
    repo = await makeRepo();
    repositoryId = (await srv.api("POST", "/repositories", { path: repo.path })).body.id;
    browser = await launchBrowser();
    evil = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>evil</title><body>evil</body>"));
    await new Promise<void>((r) => evil.listen(0, "127.0.0.1", r));
    evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => evil?.close(r));
    await srv?.close();
    await repo?.cleanup();
  });

  async function freshTask(title: string): Promise<string> {
    return (await srv.api("POST", "/tasks", { title, repositories: [{ repositoryId }] })).body.id;
  }

  async function unchanged(taskId: string, title: string): Promise<void> {
    const task = (await srv.api("GET", `/tasks/${taskId}`)).body;
    expect(task.archivedAt).toBeNull();
    expect(task.title).toBe(title);
    expect((await srv.api("GET", `/tasks/${taskId}/sessions`)).body).toEqual([]);
    expect((await srv.api("GET", "/cleanup-jobs", undefined)).body.filter((j: { taskId: string }) => j.taskId === taskId)).toEqual([]);
    expect((await srv.api("GET", "/tasks")).body.map((t: { title: string }) => t.title)).not.toContain("pwned");
  }

  it.each([
    ["another port on 127.0.0.1", () => evilUrl],
    ["localhost against 127.0.0.1 (same port)", () => srv.url.replace("127.0.0.1", "localhost")],
  ])("SEC-5 from %s: no events, no reads, no changes", async (_label, pageUrl) => {
    const title = `victim ${_label}`;
    const taskId = await freshTask(title);
    const page = await browser.newPage();
    await page.goto(pageUrl());
    const ticker = setInterval(() => void srv.api("PATCH", `/tasks/${taskId}`, { description: String(Date.now()) }), 200);
    let result;
    try {
      result = await attack(page, srv.url, taskId);
    } finally {
      clearInterval(ticker);
    }
    await page.close();
    expect(result.ws).not.toBe("open");
    expect(result.frames).toBe(0);
    expect(result.read).toBe("refused");
    await unchanged(taskId, title);
  });

  it("SEC-5 the same actions from Grove's own page work", async () => {
    const taskId = await freshTask("own page");
    const page = await browser.newPage();
    await page.goto(srv.url);
    const ticker = setInterval(() => void srv.api("PATCH", `/tasks/${taskId}`, { description: String(Date.now()) }), 200);
    let result;
    try {
      result = await page.evaluate(async (taskId) => {
        const frames = await new Promise<number>((resolve) => {
          const sock = new WebSocket(`ws://${location.host}/api/v1/events`);
          let n = 0;
          sock.onmessage = () => n++;
          sock.onopen = () => setTimeout(() => resolve(n), 1500);
          sock.onerror = () => resolve(-1);
        });
        const read = (await fetch("/api/v1/tasks")).status;
        const json = { "content-type": "application/json" };
        const patch = (await fetch(`/api/v1/tasks/${taskId}`, { method: "PATCH", headers: json, body: JSON.stringify({ title: "renamed" }) })).status;
        const archive = (await fetch(`/api/v1/tasks/${taskId}/archive`, { method: "POST", headers: json })).status;
        return { frames, read, patch, archive };
      }, taskId);
    } finally {
      clearInterval(ticker);
    }
    await page.close();
    expect(result.frames).toBeGreaterThan(0);
    expect(result).toMatchObject({ read: 200, patch: 200, archive: 202 });
    expect((await srv.api("GET", `/tasks/${taskId}`)).body.title).toBe("renamed");
  });
});
