import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
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

describe("UX-4 the quick start: `npm start` with the defaults", () => {
  const home = mkdtempSync(join(tmpdir(), "grove-quickstart-home-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("UX-4 serves the API and the page on 127.0.0.1:7420 with SQLite in ~/.grove and the scripted agent", async () => {
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
      expect(existsSync(join(home, ".grove", "grove.db"))).toBe(true);
    } finally {
      // SIGTERM the whole npm → node tree; the server exits 0 on SIGTERM (CONTRACT.md).
      process.kill(-child.pid!, "SIGTERM");
      await exited;
    }
  }, 120_000);
});
