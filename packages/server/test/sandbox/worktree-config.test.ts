import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync, makeRepo } from "../fixture/git.js";
import { startTestServer, waitForSession } from "../fixture/server.js";
import { personHome, runResults, turn } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

// Outside every worktree and outside /tmp: read-only inside the sandbox, so only a filter Grove's
// own (unconfined) git ran could create the marker.
const OUTSIDE_DIR = resolve(import.meta.dirname, "..", "..", "..", "..", ".grove-test");

describe.each(ONE_DATABASE)("SBX-4.6 a repository with per-worktree config (%s)", (kind) => {
  const cleanups = cleanupsAfterEach();

  it("SBX-4.6 the agent cannot write its worktree's config.worktree: a planted clean filter never runs in Grove's Changes, diff or commit; the agent's own git still works", async () => {
    const person = await personHome();
    cleanups.push(() => rm(person.home, { recursive: true, force: true }));
    const srv = await startTestServer(kind, undefined, {
      HOME: person.home,
      GROVE_GIT_AUTHOR_NAME: "Person",
      GROVE_GIT_AUTHOR_EMAIL: "person@example.invalid",
    });
    cleanups.push(() => srv.close());
    const repo = await makeRepo({ files: { "a.txt": "one\n" }, name: "wtconfig" });
    cleanups.push(() => repo.cleanup());
    // What `git sparse-checkout` turns on, or what a person may have set themselves.
    gitSync(repo.path, "config", "extensions.worktreeConfig", "true");
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const task = (await srv.api("POST", "/tasks", { title: "Config attack", repositories: [{ repositoryId: r.body.id }] })).body;
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "scripted" });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    expect(s.body.sandbox).toBe("confined");
    const worktree = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body.workspacePath as string;
    const adminDir = gitSync(worktree, "rev-parse", "--absolute-git-dir").trim();
    const config = join(adminDir, "config.worktree");
    const marker = join(OUTSIDE_DIR, `sbx-filter-ran-${Date.now()}-${kind}`);
    cleanups.push(() => rm(marker, { force: true }));
    const filter = `touch ${marker}; cat`;

    const attacks = await turn(
      srv,
      s.body.id,
      [
        `run git config --worktree filter.pwn.clean '${filter}'`,
        `run printf '[filter "pwn"]\\n\\tclean = ${filter}\\n' >> ${config}`,
        `run rm -f ${config} && printf '[filter "pwn"]\\n\\tclean = ${filter}\\n' > ${config}`,
        `run mv ${config} ${config}.old`,
      ].join("\n"),
    );
    const results = runResults(attacks);
    expect(results).toHaveLength(4);
    for (const [i, x] of results.entries()) expect(x.code, `attempt ${i}: ${x.output}`).not.toBe(0);
    expect(readFileSync(config, "utf8")).not.toContain("pwn");

    // The agent's ordinary work goes on, its own commit included; then Grove's git runs in the
    // worktree: Changes (status + numstat), a file's diff and the person's commit (git add).
    const work = await turn(
      srv,
      s.body.id,
      [
        "write a.txt changed by the agent",
        "run git add -A && git commit -q -m 'agent commit' && git log -1 --format=%s",
        "write .gitattributes * filter=pwn",
        "write b.txt uncommitted",
      ].join("\n"),
    );
    expect(runResults(work).map((x) => x.output)).toEqual(["agent commit"]);
    const changes = await srv.api("GET", `/tasks/${task.id}/changes`);
    expect(changes.status).toBe(200);
    expect(changes.body.repositories[0].files.map((f: any) => f.path)).toContain("b.txt");
    const diff = await srv.api("GET", `/tasks/${task.id}/changes/diff?repositoryId=${r.body.id}&path=b.txt`);
    expect(diff.status).toBe(200);
    const commit = await srv.api("POST", `/tasks/${task.id}/commit`, { message: "person commit" });
    expect(commit.status, JSON.stringify(commit.body)).toBe(201);
    expect(gitSync(worktree, "log", "-1", "--format=%s").trim()).toBe("person commit");
    expect(existsSync(marker)).toBe(false);
  });
});
