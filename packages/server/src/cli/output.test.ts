import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Output, formatError, formatTable } from "./output.js";
import { listenEnv } from "./commands/serve.js";

function capture(json: boolean) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = new Output({ json, stdout, stderr });
  const read = (s: PassThrough) => (s.read() as Buffer | null)?.toString("utf8") ?? "";
  return { out, stdout: () => read(stdout), stderr: () => read(stderr) };
}

describe("CLI output (UX-3)", () => {
  it("UX-3 --json writes one JSON document to stdout and progress only to stderr", () => {
    const c = capture(true);
    c.out.progress("materializing workspace…");
    c.out.result({ id: "x" }, () => ["human"]);
    expect(JSON.parse(c.stdout())).toEqual({ id: "x" });
    expect(c.stderr()).toBe("materializing workspace…\n");
  });

  it("UX-3 human output prints the lines of the formatter", () => {
    const c = capture(false);
    c.out.result({ id: "x" }, () => ["a", "b"]);
    expect(c.stdout()).toBe("a\nb\n");
  });

  it("UX-3 errors are one line: error: CODE: message", () => {
    expect(formatError("git_failed", "fatal: bad\n  object\n")).toBe("error: git_failed: fatal: bad object");
  });

  it("UX-3 tables pad every column but the last", () => {
    expect(
      formatTable(
        [
          ["a", "in_progress", "T 1"],
          ["bbb", "todo", "T 2"],
        ],
        ["ID", "STATE", "TITLE"],
      ),
    ).toEqual(["ID   STATE        TITLE", "a    in_progress  T 1", "bbb  todo         T 2"]);
    expect(formatTable([])).toEqual([]);
  });

  it("UX-4 grove serve --host/--port set where to listen", () => {
    expect(listenEnv({ host: "0.0.0.0", port: "8123" })).toEqual({ GROVE_HOST: "0.0.0.0", GROVE_PORT: "8123" });
    expect(listenEnv({ host: "[::1]" })).toEqual({ GROVE_HOST: "::1" });
    expect(() => listenEnv({ port: "abc" })).toThrow(/--port must be a port number/);
  });
});
