import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

// CI's last line (.ci/summary.mjs): the CI reads only `N passed, N failed`, so a red run must never
// print `0 failed`. Reports are shaped as vitest's JSON reporter writes them (a file whose
// beforeAll threw: status "failed", an empty message, its tests "skipped").
const script = fileURLToPath(new URL("../../../../.ci/summary.mjs", import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

type Test = { status: string; fullName?: string; failureMessages?: string[] };
function report(files: { name: string; status: string; message?: string; tests: Test[] }[]): string {
  const all = files.flatMap((f) => f.tests);
  const dir = mkdtempSync(join(tmpdir(), "grove-ci-summary-"));
  dirs.push(dir);
  const path = join(dir, "report.json");
  writeFileSync(
    path,
    JSON.stringify({
      numPassedTests: all.filter((t) => t.status === "passed").length,
      numFailedTests: all.filter((t) => t.status === "failed").length,
      testResults: files.map((f) => ({ name: f.name, status: f.status, message: f.message ?? "", assertionResults: f.tests })),
    }),
  );
  return path;
}

const summary = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: "utf8" });
const lastLine = (out: string) => out.trim().split("\n").at(-1);

describe("CI summary line", () => {
  it("a green report: its passed count, 0 failed, exit 0", () => {
    const r = summary(report([{ name: "a.test.ts", status: "passed", tests: [{ status: "passed" }, { status: "passed" }] }]));
    expect(lastLine(r.stdout)).toBe("2 passed, 0 failed");
    expect(r.status).toBe(0);
  });

  it("a file whose hook failed (its tests skipped, none failed) counts as a failure and is named", () => {
    const main = report([{ name: "a.test.ts", status: "passed", tests: [{ status: "passed" }] }]);
    const leg = report([{ name: "cli/repo-rm.test.ts", status: "failed", tests: [{ status: "passed" }, { status: "skipped" }, { status: "skipped" }] }]);
    const r = summary(main, leg, "1");
    expect(lastLine(r.stdout)).toBe("2 passed, 1 failed");
    expect(r.stdout).toContain("FAILED FILE cli/repo-rm.test.ts");
    expect(r.stdout).toContain("2 of its tests skipped");
    expect(r.status).toBe(1);
  });

  it("failed tests are counted once each and named with their first error line", () => {
    const r = summary(
      report([
        {
          name: "b.test.ts",
          status: "failed",
          tests: [
            { status: "passed" },
            { status: "failed", fullName: "b breaks", failureMessages: ["AssertionError: expected 1 to be 2\n    at b.test.ts:3"] },
          ],
        },
      ]),
    );
    expect(lastLine(r.stdout)).toBe("1 passed, 1 failed");
    expect(r.stdout).toContain("FAILED b.test.ts > b breaks\n  AssertionError: expected 1 to be 2");
    expect(r.status).toBe(1);
  });

  it("a missing required report is a failure; a missing optional one is not", () => {
    const main = report([{ name: "a.test.ts", status: "passed", tests: [{ status: "passed" }] }]);
    const missing = join(tmpdir(), "grove-ci-summary-missing.json");
    expect(lastLine(summary(main, missing, "0").stdout)).toBe("1 passed, 0 failed");
    const required = summary(main, missing, "1");
    expect(lastLine(required.stdout)).toBe("1 passed, 1 failed");
    expect(required.status).toBe(1);
    expect(lastLine(summary(missing).stdout)).toBe("0 passed, 1 failed");
  });

  it("a static check that failed or never ended counts as a failure even when every test passed", () => {
    const main = report([{ name: "a.test.ts", status: "passed", tests: [{ status: "passed" }] }]);
    const checks = join(dirname(main), "static-checks.json");
    writeFileSync(checks, JSON.stringify({ "format:check": { status: "passed", exitCode: 0 }, lint: { status: "failed", exitCode: 1 } }));
    const red = summary(main);
    expect(lastLine(red.stdout)).toBe("1 passed, 1 failed");
    expect(red.stdout).toContain("FAILED CHECK lint: exit 1");
    expect(red.status).toBe(1);
    writeFileSync(checks, JSON.stringify({ lint: { status: "passed", exitCode: 0 }, typecheck: { status: "running" } }));
    expect(summary(main).stdout).toContain("FAILED CHECK typecheck: stopped before it ended");
    writeFileSync(checks, JSON.stringify({ lint: { status: "passed", exitCode: 0 }, typecheck: { status: "passed", exitCode: 0 } }));
    expect(lastLine(summary(main).stdout)).toBe("1 passed, 0 failed");
  });
});
