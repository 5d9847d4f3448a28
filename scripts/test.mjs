// `npm test`: the format check, lint, the type checks, the build and the suite, all of which must
// pass. The build comes first (the page tests load it, the CLI tests run its bundle); lint and the
// type checks then run beside the suite instead of before it: on a 2-core machine they are about
// 80 CPU-seconds that would otherwise run mostly on one core while the other waits, and the suite
// leaves some CPU idle that they fill (docs/decisions/2026-12-07-static-checks-beside-the-suite.md).
// Their output is printed whole when each ends, never interleaved line by line with vitest's.
// A failed check stops the suite at once (no point waiting minutes for a red answer) and the run
// exits 1; `.grove-test/static-checks.json` records every check's outcome for CI's summary line
// (.ci/summary.mjs), which counts a failed check as a failure even when every test passed.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chooseScratch, removeScratch } from "./test-scratch.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outcomes = {};
const children = new Set();
let suiteProcess;

function record() {
  mkdirSync(join(root, ".grove-test"), { recursive: true });
  writeFileSync(join(root, ".grove-test", "static-checks.json"), `${JSON.stringify(outcomes, null, 2)}\n`);
}

/** Runs `npm run -s <script>` with its output held back; resolves with its exit code. */
function check(script) {
  const started = Date.now();
  outcomes[script] = { status: "running" };
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "-s", script], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    const out = [];
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => out.push(d));
    child.on("error", (e) => out.push(Buffer.from(`${e.message}\n`)));
    child.on("close", (code) => {
      children.delete(child);
      const exit = code ?? 1;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      outcomes[script] = { status: exit === 0 ? "passed" : "failed", exitCode: exit, seconds: Number(seconds) };
      record();
      const text = Buffer.concat(out).toString().trimEnd();
      process.stdout.write(`\n== ${script}: ${exit === 0 ? "ok" : `FAILED (exit ${exit})`} in ${seconds} s\n${text ? `${text}\n` : ""}`);
      resolve(exit);
    });
  });
}

/** The suite, in its own process group so a failed check (or Ctrl-C) stops its workers too. */
function suite() {
  return new Promise((resolve) => {
    const vitest = [process.execPath, [join(root, "node_modules", "vitest", "vitest.mjs"), "run", ...process.argv.slice(2)]];
    const [command, args] = scratch.dir ? scratch.command(...vitest) : vitest;
    const child = spawn(command, args, {
      cwd: root,
      stdio: "inherit",
      detached: true,
      env: scratch.dir ? { ...process.env, TMPDIR: scratch.dir } : process.env,
    });
    suiteProcess = child;
    children.add(child);
    child.on("close", (code) => {
      children.delete(child);
      resolve(code ?? 1);
    });
  });
}

function stop(child, signal) {
  try {
    // The suite leads its own group (detached); a check is one npm process.
    process.kill(child === suiteProcess ? -child.pid : child.pid, signal);
  } catch {
    // Already gone.
  }
}
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    interrupted = true;
    for (const child of children) stop(child, signal);
  });
}

let scratch;
try {
  scratch = chooseScratch();
} catch (e) {
  if (e.code !== "bad_test_scratch") throw e;
  // The person's own setting: one line naming it, and nothing run.
  process.stderr.write(`npm test: ${e.code}: ${e.message}\n`);
  process.exit(2);
}
process.stdout.write(
  `== the suite's scratch files: ${scratch.dir ? `${scratch.dir} (a tmpfs private to the suite)` : `the system temp dir (${scratch.reason})`}\n`,
);

const firstStep = await Promise.all([check("format:check"), check("build")]);
if (interrupted || firstStep.some((code) => code !== 0)) {
  process.exitCode = 1;
} else {
  const failedCheck = (code) => {
    if (code !== 0 && suiteProcess && children.has(suiteProcess)) {
      process.stdout.write("\n== a check failed: stopping the suite\n");
      stop(suiteProcess, "SIGTERM");
    }
    return code;
  };
  const results = await Promise.all([suite(), check("lint").then(failedCheck), check("typecheck").then(failedCheck)]);
  process.exitCode = results.some((code) => code !== 0) ? 1 : 0;
}
if (scratch.dir) removeScratch(scratch.dir);
// Interrupted (Ctrl-C, a CI timeout): the shell's convention, whatever the stopped steps returned.
if (interrupted) process.exitCode = 130;
