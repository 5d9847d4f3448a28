import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync, type TestRepo } from "../fixture/git.js";
import { rawExpectation } from "../fixture/git-oracle.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { registerRepo } from "./helpers.js";

const LINES = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i}\n`).join("");
const ODD = ["with space.txt", "ünïcødé ✓.txt", 'quo"te.txt', "new\nline.txt", "tab\there.txt", "-dash.txt", "star*.txt", "back\\slash.txt"];
type Counts = { additions: number; deletions: number; binary: boolean; oldPath?: string };

describe.each(ONE_DATABASE)("CHG-1 CHG-2 SEC-2 Changes at scale over HTTP (%s)", (kind) => {
  let srv: TestServer | undefined;
  let repo: TestRepo | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
    await repo?.cleanup();
  });

  async function launched(files: Record<string, string>) {
    srv = await startTestServer(kind);
    const r = await registerRepo(srv, "scale", {}, files);
    repo = r.repo;
    const t = await srv.api("POST", "/tasks", { title: "Scale", repositories: [{ repositoryId: r.id }] });
    const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const wt = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body.workspacePath as string;
    return { taskId: t.body.id as string, repositoryId: r.id, wt };
  }

  it("CHG-1 ≥200 changed files of every kind (conflict from a failed merge, odd names): file list and counts equal git numstat against the merge-base plus untracked, exactly", async () => {
    const base: Record<string, string> = {
      ".gitignore": "*.log\nbuild/\n",
      "conflict.txt": LINES(5, "base"),
      "type.txt": "plain\n",
      "bin.dat": "text for now\n",
    };
    for (let i = 0; i < 120; i++) base[`src/m${i}.txt`] = LINES(10 + (i % 7), `m${i}`);
    for (let i = 0; i < 30; i++) base[`old/d${i}.txt`] = LINES(4, `d${i}`);
    for (let i = 0; i < 20; i++) base[`ren/r${i}.txt`] = LINES(30, `rename body ${i}`);
    const { taskId, wt } = await launched(base);
    const g = (...a: string[]) => gitSync(wt, ...a);

    // Committed on the task branch: added, modified, deleted, renamed, type-changed, binary.
    for (let i = 0; i < 40; i++) writeFileSync(join(wt, "src", `m${i}.txt`), LINES(12, `changed${i}`));
    for (let i = 0; i < 30; i++) unlinkSync(join(wt, "old", `d${i}.txt`));
    mkdirSync(join(wt, "ren2"));
    for (let i = 0; i < 20; i++) renameSync(join(wt, "ren", `r${i}.txt`), join(wt, "ren2", `r${i}.txt`));
    unlinkSync(join(wt, "type.txt"));
    symlinkSync("src/m0.txt", join(wt, "type.txt"));
    writeFileSync(join(wt, "bin.dat"), Buffer.from([0, 1, 2, 3, 0, 255, 10]));
    for (let i = 0; i < 30; i++) writeFileSync(join(wt, `new${i}.txt`), LINES(i + 1, "new"));
    writeFileSync(join(wt, "conflict.txt"), LINES(5, "ours"));
    g("add", "-A");
    g("-c", "user.name=T", "-c", "user.email=t@x.invalid", "commit", "-qm", "task work");
    // A side branch from the base that conflicts, merged and failed: a conflict left in place.
    g("branch", "side", "main");
    const side = join(wt, "..", "side-wt");
    g("worktree", "add", "-q", side, "side");
    writeFileSync(join(side, "conflict.txt"), LINES(5, "theirs"));
    writeFileSync(join(side, "from-side.txt"), "merged cleanly\n");
    gitSync(side, "-c", "user.name=T", "-c", "user.email=t@x.invalid", "commit", "-qam", "side");
    gitSync(side, "add", "from-side.txt");
    gitSync(side, "-c", "user.name=T", "-c", "user.email=t@x.invalid", "commit", "-qm", "side 2");
    expect(() => g("-c", "user.name=T", "-c", "user.email=t@x.invalid", "merge", "-q", "side")).toThrow();
    g("worktree", "remove", "--force", side);
    // Uncommitted: staged, unstaged, both, untracked (odd names), ignored (never listed).
    for (let i = 40; i < 80; i++) writeFileSync(join(wt, "src", `m${i}.txt`), LINES(3, `unstaged${i}`));
    for (let i = 80; i < 100; i++) {
      writeFileSync(join(wt, "src", `m${i}.txt`), LINES(6, `staged${i}`));
      g("add", "--", `src/m${i}.txt`);
    }
    for (let i = 100; i < 110; i++) {
      writeFileSync(join(wt, "src", `m${i}.txt`), LINES(6, `staged${i}`));
      g("add", "--", `src/m${i}.txt`);
      writeFileSync(join(wt, "src", `m${i}.txt`), LINES(9, `both${i}`));
    }
    mkdirSync(join(wt, "odd"));
    for (const name of ODD) writeFileSync(join(wt, "odd", name), LINES(2, "odd"));
    for (let i = 0; i < 20; i++) writeFileSync(join(wt, `untracked${i}.md`), LINES(i, "u"));
    writeFileSync(join(wt, "untracked-bin.png"), Buffer.from([0x89, 0x50, 0, 0, 1]));
    writeFileSync(join(wt, "noise.log"), "ignored\n");
    mkdirSync(join(wt, "build"));
    writeFileSync(join(wt, "build", "out.js"), "ignored\n");

    const ch = (await srv!.api("GET", `/tasks/${taskId}/changes`)).body;
    expect(ch.repositories).toHaveLength(1);
    const slot = ch.repositories[0];
    const expected = rawExpectation(wt, slot.mergeBase);
    expect(expected.size).toBeGreaterThanOrEqual(200);
    const got = new Map<string, Counts>(
      slot.files.map((f: { path: string; additions: number; deletions: number; binary: boolean; oldPath?: string }) => [
        f.path,
        { additions: f.additions, deletions: f.deletions, binary: f.binary, ...(f.oldPath !== undefined && { oldPath: f.oldPath }) },
      ]),
    );
    expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [path, e] of expected) expect(got.get(path), path).toEqual(e);
    expect(slot.truncated).toBe(false);

    const statuses = new Set(slot.files.map((f: { status: string }) => f.status));
    for (const s of ["added", "modified", "deleted", "renamed", "untracked", "conflicted", "typechange"]) expect(statuses, s).toContain(s);
    const by = (p: string) => slot.files.find((f: { path: string }) => f.path === p);
    expect(by("conflict.txt")).toMatchObject({ status: "conflicted" });
    expect(by("type.txt")).toMatchObject({ status: "typechange" });
    expect(by("bin.dat")).toMatchObject({ binary: true });
    expect(by("ren2/r3.txt")).toMatchObject({ status: "renamed", oldPath: "ren/r3.txt" });
    expect(by("src/m45.txt")).toMatchObject({ staged: false, unstaged: true });
    expect(by("src/m85.txt")).toMatchObject({ staged: true, unstaged: false });
    expect(by("src/m105.txt")).toMatchObject({ staged: true, unstaged: true });
    expect(by("src/m5.txt")).toMatchObject({ status: "modified", staged: false, unstaged: false });
    for (const name of ODD) expect(by(`odd/${name}`), name).toMatchObject({ status: "untracked", additions: 2 });
    expect(by("noise.log")).toBeUndefined();
    expect(by("build/out.js")).toBeUndefined();

    // CHG-2 through the API for an odd name.
    const d = await srv!.api("GET", `/tasks/${taskId}/changes/diff?repositoryId=${slot.repositoryId}&path=${encodeURIComponent("odd/new\nline.txt")}`);
    expect(d.status).toBe(200);
    expect(d.body.patch).toContain("+odd 1");
  }, 60_000);

  it("SEC-2 diff paths: ../../etc/passwd, an absolute path, or a symlink in the worktree pointing out → 400 path_outside_worktree, nothing read outside", async () => {
    const { taskId, repositoryId, wt } = await launched({ "inside.txt": "in\n" });
    symlinkSync("/etc", join(wt, "etc-link"));
    symlinkSync("/etc/passwd", join(wt, "passwd-link"));
    mkdirSync(join(wt, "sub"));
    symlinkSync("../../..", join(wt, "sub", "up"));
    // What is counted is the refused reads; the board's background diff-stat refresh,
    // which the watcher triggers for the symlinks just written, is not part of it.
    await srv!.server.orchestrator.summaries.dispose();
    const git = srv!.server.deps.git;
    const before = git.spawnCount;
    for (const p of ["../../etc/passwd", "/etc/passwd", "etc-link/passwd", "passwd-link", "sub/up/etc/passwd", "sub/../../x", `${wt}/inside.txt`]) {
      const r = await srv!.api("GET", `/tasks/${taskId}/changes/diff?repositoryId=${repositoryId}&path=${encodeURIComponent(p)}`);
      expect(r.status, p).toBe(400);
      expect(r.body.error.code, p).toBe("path_outside_worktree");
      expect(JSON.stringify(r.body)).not.toContain("root:");
    }
    // Refused before any git process could read the file.
    expect(git.spawnCount).toBe(before);
    // A path inside still works.
    writeFileSync(join(wt, "inside.txt"), "in\nmore\n");
    const ok = await srv!.api("GET", `/tasks/${taskId}/changes/diff?repositoryId=${repositoryId}&path=inside.txt`);
    expect(ok.status).toBe(200);
    expect(ok.body.patch).toContain("+more");
    rmSync(join(wt, "etc-link"));
  });
});
