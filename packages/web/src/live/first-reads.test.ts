import { QueryClient } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { request } from "../api/client.js";
import { EventStream } from "./events.js";
import { firstReadsAfterOpen } from "./first-reads.js";

/** Signals what the socket's onopen / onclose signal (EventStream.emit is the one dispatcher). */
const signal = (stream: EventStream, type: "connected" | "disconnected") =>
  (stream as unknown as { emit(type: string, data: unknown, frame: unknown): void }).emit(type, undefined, undefined);
const open = (stream: EventStream) => signal(stream, "connected");
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe("WEB-19 the page's first reads and the event stream's first open (live/first-reads.ts)", () => {
  const sent: string[] = [];
  // The page's fetch, for this file's tests only: workers keep globals from file to file
  // (vitest.config.ts `isolate: false`), so the real one is put back after each test.
  afterEach(() => vi.unstubAllGlobals());
  beforeEach(() => {
    sent.splice(0);
    vi.stubGlobal("fetch", (url: string, init: { method: string }) => (sent.push(`${init.method} ${url}`), Promise.resolve(new Response("{}"))));
  });

  it("WEB-19: a read waits for the stream to open (a frame sent between its answer and the open would be lost); a change does not wait", async () => {
    const qc = new QueryClient();
    const stream = new EventStream();
    const stop = firstReadsAfterOpen(qc, stream, 60_000);
    qc.setQueryData(["task", "t1"], { id: "t1" });
    const read = request("GET", "/tasks");
    void request("POST", "/tasks", { title: "x" });
    await tick(20);
    expect(sent).toEqual(["POST /api/v1/tasks"]);
    open(stream);
    await read;
    expect(sent).toEqual(["POST /api/v1/tasks", "GET /api/v1/tasks"]);
    // The reads went after the open: nothing is read twice.
    expect(qc.getQueryState(["task", "t1"])!.isInvalidated).toBe(false);
    void request("GET", "/repositories");
    await tick();
    expect(sent.at(-1)).toBe("GET /api/v1/repositories");
    stop();
  });

  it("WEB-19: a socket refused before it ever opened (a server that is down, an expired sign-in) lets the reads go at once; they are read again once it opens", async () => {
    const qc = new QueryClient();
    const stream = new EventStream();
    const stop = firstReadsAfterOpen(qc, stream, 60_000);
    const read = request("GET", "/tasks");
    await tick(20);
    expect(sent).toEqual([]);
    signal(stream, "disconnected");
    await read;
    expect(sent).toEqual(["GET /api/v1/tasks"]);
    qc.setQueryData(["task", "t1"], { id: "t1" });
    open(stream);
    expect(qc.getQueryState(["task", "t1"])!.isInvalidated).toBe(true);
    stop();
  });

  it("WEB-19: reads do not wait past the limit for a stream that does not open; what was read before it opens is read again then", async () => {
    const qc = new QueryClient();
    const stream = new EventStream();
    const stop = firstReadsAfterOpen(qc, stream, 30);
    await request("GET", "/tasks");
    expect(sent).toEqual(["GET /api/v1/tasks"]);
    qc.setQueryData(["task", "t1"], { id: "t1" });
    open(stream);
    expect(qc.getQueryState(["task", "t1"])!.isInvalidated).toBe(true);
    stop();
  });
});
