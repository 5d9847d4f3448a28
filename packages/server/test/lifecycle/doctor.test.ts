import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runGrove } from "../cli/run-cli.js";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync } from "../fixture/git.js";
import { serverPerTest } from "../fixture/server.js";
import { envRows, taskWithSession } from "./helpers.js";

describe.each(ONE_DATABASE)("grove doctor (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("LC-D: a consistent install → ok, exit 0", async () => {
    const srv = await perTest.start();
    await taskWithSession(srv, "say hi");
    const r = await srv.api("GET", "/doctor");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, findings: [], checked: { environmentRows: 1, repositories: 1, taskDirectories: 1 } });
    const cli = await runGrove(["doctor", "--server", srv.url]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain("ok:");
  });

  it("LC-D: reports a hand-made orphan directory and a hand-removed worktree, exits 1, and changes nothing", async () => {
    const srv = await perTest.start();
    const { task, slot, session, repo } = await taskWithSession(srv);
    await srv.server.deps.agents.stop(session.id);
    await rm(slot.worktreePath, { recursive: true, force: true });
    const stray = join(srv.home, "tasks", "not-a-task-123");
    mkdirSync(stray, { recursive: true });
    writeFileSync(join(stray, "notes.txt"), "mine");
    const worktreesBefore = gitSync(repo.path, "worktree", "list", "--porcelain");
    const rowsBefore = await envRows(srv.api, task.id);

    const r = await srv.api("GET", "/doctor");
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(false);
    const kinds = r.body.findings.map((f: any) => `${f.kind} ${f.path}`);
    expect(kinds).toContain(`missing ${slot.worktreePath}`);
    expect(kinds).toContain(`orphan ${stray}`);

    const cli = await runGrove(["doctor", "--json", "--server", srv.url]);
    expect(cli.code).toBe(1);
    expect(JSON.parse(cli.stdout)).toEqual(r.body);
    // CLI-16: with --json the failure on stderr is a JSON document too.
    expect(JSON.parse(cli.stderr).error.code).toBe("doctor_findings");
    const human = await runGrove(["doctor", "--server", srv.url]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/missing\s+\S+/);

    // Read-only: nothing was repaired, removed or re-registered.
    expect(readdirSync(stray)).toEqual(["notes.txt"]);
    expect(existsSync(slot.worktreePath)).toBe(false);
    expect(gitSync(repo.path, "worktree", "list", "--porcelain")).toBe(worktreesBefore);
    expect(await envRows(srv.api, task.id)).toEqual(rowsBefore);
  });

  it("LC-D: a worktree switched to another branch is a mismatch; a directory in a task dir without a row is an orphan", async () => {
    const srv = await perTest.start();
    const { slot } = await taskWithSession(srv, "say hi");
    gitSync(slot.worktreePath, "switch", "-q", "-c", "elsewhere");
    const extra = join(slot.worktreePath, "..", "leftover");
    mkdirSync(extra);
    const r = await srv.api("GET", "/doctor");
    const byKind = Object.fromEntries(r.body.findings.map((f: any) => [f.kind, f]));
    expect(byKind.mismatch).toMatchObject({ path: slot.worktreePath, expected: slot.worktreeBranch, actual: "elsewhere" });
    expect(byKind.orphan.path).toBe(extra);
  });
});
