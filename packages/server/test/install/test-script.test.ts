import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

// `npm test` (scripts/test.mjs) runs lint and the type checks beside the suite: a red check must
// still make the run red, stop the suite, and be recorded for CI's summary line. Run here against
// a scratch project whose npm scripts and "vitest" are small stand-ins with the outcome each test
// sets, so the script's own ordering and exit codes are what is checked.
const script = fileURLToPath(new URL("../../../../scripts/test.mjs", import.meta.url));
const scratchModule = fileURLToPath(new URL("../../../../scripts/test-scratch.mjs", import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

type Outcome = { exit: number; afterMs?: number };
/** The suite stand-in ends once these steps are logged (it ran beside them), or after afterMs. */
type SuiteOutcome = Outcome & { endsAfter?: string[]; worker?: boolean };
function project(checks: Record<"format:check" | "build" | "lint" | "typecheck", Outcome>, suite: SuiteOutcome) {
  const dir = mkdtempSync(join(tmpdir(), "grove-test-script-"));
  dirs.push(dir);
  mkdirSync(join(dir, "scripts"));
  copyFileSync(script, join(dir, "scripts", "test.mjs"));
  copyFileSync(scratchModule, join(dir, "scripts", "test-scratch.mjs"));
  const step = (name: string, o: Outcome) =>
    `node -e "setTimeout(() => { require('fs').appendFileSync('steps.log', '${name}\\n'); console.log('${name} says hi'); process.exit(${o.exit}); }, ${o.afterMs ?? 0})"`;
  const scripts = Object.fromEntries(Object.entries(checks).map(([name, o]) => [name, step(name, o)]));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "scratch", private: true, scripts }));
  mkdirSync(join(dir, "node_modules", "vitest"), { recursive: true });
  // The suite stand-in notes when it starts and when it ends by itself; a stopped one never ends.
  writeFileSync(
    join(dir, "node_modules", "vitest", "vitest.mjs"),
    `import { appendFileSync, readFileSync } from "node:fs";
appendFileSync("steps.log", ["suite started", ...process.argv.slice(2)].join(" ") + "\\n");
// Where the suite's scratch files go: a file left there must be gone after the run.
appendFileSync("steps.log", "TMPDIR " + (process.env.TMPDIR ?? "unset") + "\\n");
if (process.env.TMPDIR) {
  const { readlinkSync, statfsSync } = await import("node:fs");
  appendFileSync(process.env.TMPDIR + "/left-behind", "x");
  appendFileSync("steps.log", "fs " + (statfsSync(process.env.TMPDIR).type === 0x01021994 ? "tmpfs" : "disk") + "\\n");
  appendFileSync("steps.log", "mnt " + readlinkSync("/proc/self/ns/mnt") + "\\n");
}
if (${suite.worker === true}) {
  const { spawn } = await import("node:child_process");
  const w = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  appendFileSync("steps.log", "worker " + w.pid + "\\n");
}
const end = () => { appendFileSync("steps.log", "suite ended\\n"); process.exit(${suite.exit}); };
const waits = ${JSON.stringify(suite.endsAfter ?? [])};
const poll = () => (waits.every((w) => readFileSync("steps.log", "utf8").split("\\n").includes(w)) ? end() : setTimeout(poll, 50));
setTimeout(poll, ${suite.afterMs ?? 0});
setTimeout(() => process.exit(3), 120_000).unref();
`,
  );
  return dir;
}

function run(
  dir: string,
  args: string[] = [],
  onStart?: (child: ReturnType<typeof spawn>) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; out: string; steps: string[]; checks: Record<string, { status: string }> }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(dir, "scripts", "test.mjs"), ...args], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    onStart?.(child);
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => {
      const steps = existsSync(join(dir, "steps.log")) ? readFileSync(join(dir, "steps.log"), "utf8").trim().split("\n") : [];
      const checksFile = join(dir, ".grove-test", "static-checks.json");
      resolve({ code, out, steps, checks: existsSync(checksFile) ? JSON.parse(readFileSync(checksFile, "utf8")) : {} });
    });
  });
}

describe("npm test (scripts/test.mjs): checks beside the suite", () => {
  it("all green: the build before the suite, lint and the type checks beside it, exit 0, every check recorded as passed", async () => {
    const dir = project(
      { "format:check": { exit: 0 }, build: { exit: 0, afterMs: 200 }, lint: { exit: 0, afterMs: 300 }, typecheck: { exit: 0, afterMs: 300 } },
      { exit: 0, endsAfter: ["lint", "typecheck"] },
    );
    const r = await run(dir, ["some/file.test.ts"]);
    expect(r.code).toBe(0);
    // The suite starts only after the build, gets npm test's arguments, and ends after the checks it ran beside.
    expect(r.steps.indexOf("build")).toBeLessThan(r.steps.indexOf("suite started run some/file.test.ts"));
    expect(r.steps.indexOf("suite started run some/file.test.ts")).toBeLessThan(r.steps.indexOf("lint"));
    expect(r.steps.at(-1)).toBe("suite ended");
    expect(Object.fromEntries(Object.entries(r.checks).map(([k, v]) => [k, v.status]))).toEqual({
      "format:check": "passed",
      build: "passed",
      lint: "passed",
      typecheck: "passed",
    });
    expect(r.out).toContain("== lint: ok");
    expect(r.out).toContain("lint says hi");
  });

  it("a red lint stops the suite at once and the run exits 1 with lint recorded as failed", async () => {
    const dir = project(
      { "format:check": { exit: 0 }, build: { exit: 0 }, lint: { exit: 1, afterMs: 200 }, typecheck: { exit: 0 } },
      // Never ends by itself: the run ends only if the failed lint stops it.
      { exit: 0, endsAfter: ["a step nobody logs"] },
    );
    const r = await run(dir);
    expect(r.code).toBe(1);
    expect(r.steps).toContain("suite started run");
    expect(r.steps).not.toContain("suite ended");
    expect(r.checks.lint?.status).toBe("failed");
    expect(r.out).toMatch(/== lint: FAILED \(exit 1\)[^\n]*\nlint says hi/);
    expect(r.out).toContain("stopping the suite");
  });

  it("a red suite with green checks exits 1; a red format check or build exits 1 before the suite starts", async () => {
    const suiteRed = await run(project({ "format:check": { exit: 0 }, build: { exit: 0 }, lint: { exit: 0 }, typecheck: { exit: 0 } }, { exit: 1 }));
    expect(suiteRed.code).toBe(1);
    expect(suiteRed.checks.typecheck?.status).toBe("passed");
    const buildRed = await run(project({ "format:check": { exit: 0 }, build: { exit: 2 }, lint: { exit: 0 }, typecheck: { exit: 0 } }, { exit: 0 }));
    expect(buildRed.code).toBe(1);
    expect(buildRed.checks.build?.status).toBe("failed");
    expect(buildRed.steps.some((s) => s.startsWith("suite started"))).toBe(false);
  });

  it("Ctrl-C while the suite runs stops the suite and its workers (its whole process group) and exits 130", async () => {
    const dir = project(
      { "format:check": { exit: 0 }, build: { exit: 0 }, lint: { exit: 0 }, typecheck: { exit: 0 } },
      // Never ends by itself, and starts a worker as vitest does.
      { exit: 0, endsAfter: ["a step nobody logs"], worker: true },
    );
    const log = join(dir, "steps.log");
    const workerPid = () => {
      const line = (existsSync(log) ? readFileSync(log, "utf8") : "").split("\n").find((l) => l.startsWith("worker "));
      return line ? Number(line.slice("worker ".length)) : undefined;
    };
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const r = await run(dir, [], (child) => {
      const poll = setInterval(() => {
        if (workerPid() === undefined) return;
        clearInterval(poll);
        child.kill("SIGINT");
      }, 50);
    });
    expect(r.code).toBe(130);
    expect(r.steps).not.toContain("suite ended");
    const pid = workerPid()!;
    // The group was signalled before the script exited; the worker may take a moment to be reaped.
    for (let i = 0; i < 200 && alive(pid); i++) await new Promise((res) => setTimeout(res, 50));
    expect(alive(pid)).toBe(false);
  });
});

describe("npm test (scripts/test.mjs): the suite's scratch files in memory", () => {
  const green = { "format:check": { exit: 0 }, build: { exit: 0 }, lint: { exit: 0 }, typecheck: { exit: 0 } } as const;
  const withoutTmpdir = (extra: Record<string, string> = {}) => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.TMPDIR;
    delete env.GROVE_TEST_SCRATCH;
    return { ...env, ...extra };
  };
  const seen = (steps: string[], key: string) => steps.find((l) => l.startsWith(`${key} `))?.slice(key.length + 1);

  it("no TMPDIR chosen, as root: the suite runs with TMPDIR on a tmpfs under /tmp mounted in its own mount namespace, named in the output; after the run nothing is left", async () => {
    const r = await run(project(green, { exit: 0 }), [], undefined, withoutTmpdir());
    expect(r.code, r.out).toBe(0);
    if (process.getuid?.() !== 0) {
      expect(r.out).toContain("the system temp dir (mounting a private tmpfs takes root)");
      return;
    }
    const dir = seen(r.steps, "TMPDIR")!;
    expect(dir).toMatch(/^\/tmp\/gt-[A-Za-z0-9]{6}$/);
    expect(seen(r.steps, "fs")).toBe("tmpfs");
    // Private: the suite's mount namespace is not this one, so nobody else sees the mount.
    expect(seen(r.steps, "mnt")).not.toBe(readlinkSync("/proc/self/ns/mnt"));
    expect(r.out).toContain(`== the suite's scratch files: ${dir} (a tmpfs private to the suite)`);
    expect(existsSync(dir)).toBe(false);
    expect(readFileSync("/proc/mounts", "utf8")).not.toContain(dir);
  });

  it("a TMPDIR the person set is kept, and GROVE_TEST_SCRATCH=disk keeps the system temp dir; any other value stops the run with its name", async () => {
    const own = mkdtempSync(join(tmpdir(), "grove-own-tmp-"));
    dirs.push(own);
    const kept = await run(project(green, { exit: 0 }), [], undefined, { ...withoutTmpdir(), TMPDIR: own });
    expect(kept.code, kept.out).toBe(0);
    expect(seen(kept.steps, "TMPDIR")).toBe(own);
    expect(readFileSync(join(own, "left-behind"), "utf8")).toBe("x");
    expect(kept.out).toContain(`the system temp dir (TMPDIR is set (${own}))`);
    const disk = await run(project(green, { exit: 0 }), [], undefined, withoutTmpdir({ GROVE_TEST_SCRATCH: "disk" }));
    expect(seen(disk.steps, "TMPDIR")).toBe("unset");
    expect(disk.out).toContain("the system temp dir (GROVE_TEST_SCRATCH=disk)");
    const bad = await run(project(green, { exit: 0 }), [], undefined, withoutTmpdir({ GROVE_TEST_SCRATCH: "ram" }));
    expect(bad.code).not.toBe(0);
    // One line in the person's words, with a code; no stack trace.
    expect(bad.code).toBe(2);
    expect(bad.out.trim()).toBe('npm test: bad_test_scratch: GROVE_TEST_SCRATCH must be "memory" or "disk", not "ram"');
    expect(bad.steps.some((l) => l.startsWith("suite started"))).toBe(false);
  });

  it("stays on disk without root, short of memory, or where the mount is refused (a container without the right), leaving no directory behind", async () => {
    const { chooseScratch } = await import(scratchModule);
    const tmp = mkdtempSync(join(tmpdir(), "grove-scratch-choice-"));
    dirs.push(tmp);
    const meminfo = join(tmp, "meminfo");
    writeFileSync(meminfo, "MemTotal:       24105000 kB\nMemAvailable:   16000000 kB\n");
    expect(chooseScratch({}, { tmp, uid: 1000, meminfo })).toEqual({ reason: "mounting a private tmpfs takes root" });
    writeFileSync(meminfo, "MemTotal:       4000000 kB\nMemAvailable:   1500000 kB\n");
    expect(chooseScratch({}, { tmp, uid: 0, meminfo })).toEqual({ reason: "less than 2 GiB of memory available" });
    writeFileSync(meminfo, "MemTotal:       24105000 kB\nMemAvailable:   16000000 kB\n");
    const refused = chooseScratch({}, { tmp, uid: 0, meminfo, unshare: "/bin/false" });
    expect(refused.reason).toMatch(/^a private tmpfs could not be mounted \(exit 1\)$/);
    expect(readdirSync(tmp).sort()).toEqual(["meminfo"]);
  });
});
