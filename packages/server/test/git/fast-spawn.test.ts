import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync, utimesSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { nativeSpawn, nativeStartCount, spawnWithoutFork, type StartedChild } from "../../src/git/fast-spawn.js";
import { GitRunner } from "../../src/git/runner.js";
import { makeRepo, tempDir } from "../fixture/git.js";

/** The posix_spawn addon git's seam starts git through (git/fast-spawn.ts, native/grove-spawn.c). */

const openFds = () => readdirSync("/proc/self/fd").length;

function run(child: StartedChild): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.on("close", (code: number | null, signal: string | null) => resolve({ code, signal, out, err })));
}

const sh = (script: string, opts: { env?: NodeJS.ProcessEnv; detached?: boolean; stdin?: boolean } = {}) =>
  spawnWithoutFork("sh", ["-c", script], {
    cwd: "/",
    env: opts.env ?? { PATH: process.env.PATH },
    stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe"],
    detached: opts.detached ?? false,
  })!;

describe("git started without a fork (posix_spawn addon)", () => {
  it("WT-6 npm run build compiles the addon where a C compiler and Node's headers are (as in CI), and git's seam starts git through it", async () => {
    expect(nativeSpawn()).not.toBeNull();
    const repo = await makeRepo();
    const before = nativeStartCount();
    await new GitRunner().run(["rev-parse", "HEAD"], { cwd: repo.path });
    expect(nativeStartCount()).toBe(before + 1);
    await new GitRunner({ withoutFork: false }).run(["rev-parse", "HEAD"], { cwd: repo.path });
    expect(nativeStartCount()).toBe(before + 1);
  });

  it("WT-6 the child gets exactly the given environment and working directory; stdin is written, exit codes and signals come back as Node reports them", async () => {
    const env = await run(sh("env; pwd", { env: { PATH: process.env.PATH, ONLY_THIS: "yes" } }));
    expect(
      env.out
        .split("\n")
        .filter((l) => /^[A-Z_]+=/.test(l) && !l.startsWith("PWD=") && !l.startsWith("SHLVL="))
        .sort(),
    ).toEqual([`ONLY_THIS=yes`, `PATH=${process.env.PATH}`]);
    expect(env.out.trim().split("\n").at(-1)).toBe("/");
    const echo = sh("cat", { stdin: true });
    echo.stdin!.end("through stdin\n");
    expect(await run(echo)).toEqual({ code: 0, signal: null, out: "through stdin\n", err: "" });
    expect(await run(sh("echo oops >&2; exit 7"))).toEqual({ code: 7, signal: null, out: "", err: "oops\n" });
    expect(await run(sh("kill -TERM $$"))).toMatchObject({ code: null, signal: "SIGTERM" });
    // exec: a shell's own child would keep the output pipes open (and `close` waiting) after the kill.
    const sleeper = sh("exec sleep 30");
    const done = run(sleeper);
    expect(sleeper.kill("SIGKILL")).toBe(true);
    expect(await done).toMatchObject({ code: null, signal: "SIGKILL" });
  });

  it("WT-6 detached makes the child lead a new session and group; without it the child stays in ours", async () => {
    const ids = async (detached: boolean) => {
      const child = sh("echo $$; cut -d' ' -f5,6 /proc/$$/stat", { detached });
      const [pid, ids] = (await run(child)).out.trim().split("\n");
      return { pid: Number(pid), pgrp: Number(ids!.split(" ")[0]), session: Number(ids!.split(" ")[1]) };
    };
    const led = await ids(true);
    expect(led.pgrp).toBe(led.pid);
    expect(led.session).toBe(led.pid);
    const ours = await ids(false);
    const mine = (await import("node:fs")).readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    expect(ours.session).toBe(Number(mine[3]));
  });

  it("WT-6 a program not found, or a NUL byte in an argument, the environment or the directory, throws before anything starts and leaves no descriptor open", () => {
    const before = openFds();
    const start =
      (file: string, args: string[], env: NodeJS.ProcessEnv, cwd = "/") =>
      () =>
        spawnWithoutFork(file, args, { cwd, env, stdio: ["pipe", "pipe", "pipe", "pipe"], detached: true });
    expect(start("no-such-program-grove", [], { PATH: process.env.PATH })).toThrow(/ENOENT/);
    expect(start("sh", ["-c", "echo a\0b"], { PATH: process.env.PATH })).toThrow(/NUL/);
    expect(start("sh", ["-c", "true"], { PATH: process.env.PATH, X: "a\0b" })).toThrow(/NUL/);
    expect(start("sh", ["-c", "true"], { PATH: process.env.PATH }, "/tmp\0/x")).toThrow(/NUL/);
    expect(start("sh", ["-c", "true"], { PATH: process.env.PATH }, "/no/such/dir")).toThrow(/No such file/);
    expect(openFds()).toBe(before);
  });

  it("WT-6 the addon itself refuses arguments of the wrong type with a TypeError, never an undefined pid", () => {
    const native = nativeSpawn()!;
    const spawnRaw = native.spawn as unknown as (...a: unknown[]) => unknown;
    const ok = ["/bin/true", ["true"], ["PATH=/bin"], "/", [], false];
    const wrong: [number, unknown][] = [
      [0, 7],
      [1, "true"],
      [2, null],
      [3, 1],
      [4, 3],
      [5, "yes"],
    ];
    for (const [at, value] of wrong) {
      const args = ok.map((v, i) => (i === at ? value : v));
      expect(() => spawnRaw(...args), `argument ${at}`).toThrow(TypeError);
    }
  });
});

describe("building the addon (scripts/build-native.mjs)", () => {
  const SERVER = fileURLToPath(new URL("../../", import.meta.url));

  /** The script and the C source in a directory of their own, as a checkout lays them out. */
  async function layout(): Promise<string> {
    const dir = await tempDir("grove-native-");
    mkdirSync(join(dir, "scripts"));
    mkdirSync(join(dir, "native"));
    copyFileSync(join(SERVER, "scripts/build-native.mjs"), join(dir, "scripts/build-native.mjs"));
    copyFileSync(join(SERVER, "native/grove-spawn.c"), join(dir, "native/grove-spawn.c"));
    return dir;
  }
  const build = (dir: string, env: NodeJS.ProcessEnv = {}) =>
    execFileSync(process.execPath, [join(dir, "scripts/build-native.mjs")], { env: { ...process.env, ...env }, encoding: "utf8" });

  it("WT-6 with a compiler it builds an addon that loads; again it builds nothing; without one it says git will be started by child_process, succeeds, and leaves no addon (a stale one removed)", async () => {
    const dir = await layout();
    const addon = join(dir, "dist/native/grove-spawn.node");
    expect(build(dir)).toBe("");
    expect(typeof (createRequire(import.meta.url)(addon) as { spawn: unknown }).spawn).toBe("function");
    const built = statSync(addon).mtimeMs;
    expect(build(dir, { CC: "/nonexistent/cc" })).toBe(""); // fresh: nothing to build, the compiler not even looked for
    expect(statSync(addon).mtimeMs).toBe(built);
    utimesSync(join(dir, "native/grove-spawn.c"), new Date(), new Date(Date.now() + 5000));
    expect(build(dir, { CC: "/nonexistent/cc" })).toMatch(
      /grove-spawn: not built \(no C compiler \(\/nonexistent\/cc\)\); git will be started by child_process/,
    );
    expect(existsSync(addon)).toBe(false);
    expect(readdirSync(join(dir, "dist/native"))).toEqual([]);
  });
});
