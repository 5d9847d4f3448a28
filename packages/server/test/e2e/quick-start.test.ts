import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../../../..");

function portInUse(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = createConnection({ host: "127.0.0.1", port });
    s.once("connect", () => {
      s.destroy();
      res(true);
    });
    s.once("error", () => res(false));
  });
}

/**
 * Holds a lock every checkout on this machine shares (a directory in the system's temp dir,
 * created atomically), so two suites running at once take turns on the default port instead of
 * one finding it taken. A holder that died leaves its pid behind; its lock is taken over.
 */
async function machineLock(name: string, timeoutMs: number): Promise<() => void> {
  const dir = join(tmpdir(), `${name}.lock`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "pid"), String(process.pid));
      return () => rmSync(dir, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    let holder = Number.NaN;
    try {
      holder = Number(readFileSync(join(dir, "pid"), "utf8"));
    } catch {
      // created but not yet written: a live holder
    }
    const alive = (() => {
      if (!Number.isInteger(holder) || holder <= 0) return true;
      try {
        process.kill(holder, 0);
        return true;
      } catch {
        return false;
      }
    })();
    if (!alive) rmSync(dir, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error(`${dir} is still held by pid ${holder}`);
    else await new Promise((r) => setTimeout(r, 250));
  }
}

/** The README's walkthrough: the first sh block after "A walkthrough with the scripted agent". */
function walkthrough(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const from = readme.indexOf("A walkthrough with the scripted agent");
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(from));
  if (from === -1 || !block) throw new Error("README has no walkthrough block");
  return block[1]!;
}

function runBash(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const child = spawn("bash", ["-e", "-o", "pipefail", "-c", script], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => res({ code, stdout, stderr }));
  });
}

describe("UX-4 the quick start: `npm start` with the defaults", () => {
  const home = mkdtempSync(join(tmpdir(), "grove-quickstart-home-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  // Another suite on this machine (a second checkout's CI run) runs this test too.
  let unlock: (() => void) | undefined;
  afterAll(() => unlock?.());

  it("UX-4 serves the API and the page on 127.0.0.1:7420 with SQLite in ~/.grove and the scripted agent; the README walkthrough works copy-pasted; Ctrl-C exits 0", async () => {
    unlock = await machineLock("grove-test-port-7420", 180_000);
    expect(await portInUse(7420), "port 7420 must be free for the quick-start test").toBe(false);
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
    for (const k of Object.keys(env)) if (k.startsWith("GROVE_")) delete env[k];
    const child = spawn("npm", ["start"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    try {
      await new Promise<void>((res, rej) => {
        const t = setTimeout(() => rej(new Error(`no 'listening on' line:\n${out}`)), 60_000);
        const check = () => {
          if (out.includes("listening on http://127.0.0.1:7420")) {
            clearTimeout(t);
            res();
          }
        };
        child.stdout.on("data", check);
        void exited.then(() => rej(new Error(`npm start exited:\n${out}`)));
      });
      const health = (await (await fetch("http://127.0.0.1:7420/api/v1/health")).json()) as { status: string; database: string };
      expect(health).toMatchObject({ status: "ok", database: "sqlite" });
      const agents = (await (await fetch("http://127.0.0.1:7420/api/v1/agents")).json()) as { name: string }[];
      expect(agents[0]?.name).toBe("scripted");
      const page = await fetch("http://127.0.0.1:7420/");
      expect(page.headers.get("content-type")).toContain("text/html");
      expect(await page.text()).toContain("<title>Grove</title>");
      // A path of the page is the page; a built asset that is not there is a 404, not the page as JavaScript.
      const spaPath = await fetch("http://127.0.0.1:7420/tasks/some-task");
      expect(spaPath.headers.get("content-type")).toContain("text/html");
      expect((await fetch("http://127.0.0.1:7420/assets/TaskPage-gone.js")).status).toBe(404);
      expect(existsSync(join(home, ".grove", "grove.db"))).toBe(true);

      // The README's walkthrough, copy-pasted into bash from the repository root with
      // this clean HOME, against the server `npm start` runs.
      const walk = await runBash(walkthrough(), { ...env, PATH: process.env.PATH! });
      expect(walk.stderr, walk.stdout).not.toMatch(/^error: /m);
      expect(walk.code, walk.stderr).toBe(0);
      expect(walk.stdout).toMatch(/^agent: Hello from the scripted agent$/m);
      expect(walk.stdout).toMatch(/^\+second draft$/m);
      expect(walk.stdout).toMatch(/^archiving task task_\S+ \(cleanup job /m);

      // The API document is browsable, rendered from node_modules (no network).
      const docs = await fetch("http://127.0.0.1:7420/api/docs");
      expect(await docs.text()).toContain('<script src="/api/docs/redoc.standalone.js"></script>');
      const bundle = await fetch("http://127.0.0.1:7420/api/docs/redoc.standalone.js");
      expect(bundle.headers.get("content-type")).toContain("javascript");
      expect((await bundle.text()).length).toBeGreaterThan(100_000);
    } finally {
      // Ctrl-C reaches the whole npm → node group; the server says it stops, then that it stopped.
      process.kill(-child.pid!, "SIGINT");
    }
    expect(await exited).toBe(0);
    expect(out).toMatch(/stopping.*\n(.*\n)*.*stopped/);
  }, 420_000);
});
