// CI's last lines, read from vitest's JSON reports: the failed tests' names and first error
// lines, then one plain `N passed, N failed` line (the CI shows only the end of the log and does
// not read vitest's own summary).
// Usage: node .ci/summary.mjs <report> [<report> required(0|1)]...
//   The first report is always required; each later one is followed by whether it is.
// A missing or unreadable required report counts as one failure (lint or typecheck failed before
// vitest wrote it). A file that failed with no failed test in it (a hook or an import threw, and
// vitest skipped its tests) counts as one failure too: otherwise the line could read `0 failed`
// on a red run. A static check that did not pass (scripts/test.mjs records each in
// static-checks.json beside the first report: format, build, lint, typecheck) counts as one
// failure each, because lint and the type checks run beside the suite and can fail while every
// test passes.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The checks npm test recorded beside the report; none when it was not run through scripts/test.mjs. */
function failedChecks(reportFile) {
  let checks;
  try {
    checks = JSON.parse(readFileSync(join(dirname(reportFile), "static-checks.json"), "utf8"));
  } catch {
    return [];
  }
  return Object.entries(checks)
    .filter(([, c]) => c?.status !== "passed")
    .map(([name, c]) => `FAILED CHECK ${name}: ${c?.status === "running" ? "stopped before it ended" : `exit ${c?.exitCode}`} (its output is above)`);
}

function summarize(reports) {
  const lines = [];
  let passed = 0;
  let failed = 0;
  for (const { file, required } of reports) {
    let r;
    try {
      r = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      if (required) {
        failed += 1;
        lines.push(`MISSING REPORT ${file}`);
      }
      continue;
    }
    passed += Number(r.numPassedTests) || 0;
    failed += Number(r.numFailedTests) || 0;
    for (const f of r.testResults ?? []) {
      const tests = f.assertionResults ?? [];
      if (f.status === "failed" && !tests.some((a) => a.status === "failed")) {
        failed += 1;
        const skipped = tests.filter((a) => a.status === "skipped" || a.status === "pending").length;
        const why = String(f.message ?? "").trim() || `a hook or the file failed (${skipped} of its tests skipped): vitest's log above names the error`;
        lines.push(`FAILED FILE ${f.name}\n  ${why.split("\n").slice(0, 6).join("\n  ")}`);
      }
      for (const a of tests) {
        if (a.status !== "failed") continue;
        const first = String((a.failureMessages ?? [])[0] ?? "")
          .split("\n")
          .slice(0, 8)
          .join("\n  ");
        lines.push(`FAILED ${f.name} > ${a.fullName}\n  ${first}`);
      }
    }
  }
  const checks = failedChecks(reports[0].file);
  failed += checks.length;
  lines.push(...checks);
  lines.push(`${passed} passed, ${failed} failed`);
  return { passed, failed, text: lines.join("\n") };
}

const [first, ...rest] = process.argv.slice(2);
const reports = [{ file: first, required: true }];
for (let i = 0; i + 1 < rest.length; i += 2) reports.push({ file: rest[i], required: rest[i + 1] === "1" });
const { failed, text } = summarize(reports);
console.log(text);
process.exitCode = failed === 0 ? 0 : 1;
