import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync, makeRepo } from "../fixture/git.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { blockedNotes, personHome, runResults, turn } from "./helpers.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

// A path on the read-only root, outside every worktree and outside /tmp (which is private inside).
const OUTSIDE_DIR = resolve(import.meta.dirname, "..", "..", "..", "..", ".grove-test");

describe.each(ONE_DATABASE)("SBX-1 SBX-2 the scripted agent runs confined (%s)", (kind) => {
  const cleanups = cleanupsAfterEach();

  async function server(): Promise<{ srv: TestServer; person: Awaited<ReturnType<typeof personHome>> }> {
    const person = await personHome();
    cleanups.push(() => rm(person.home, { recursive: true, force: true }));
    const srv = await startTestServer(kind, undefined, { HOME: person.home });
    cleanups.push(() => srv.close());
    return { srv, person };
  }

  async function session(srv: TestServer, title: string, files: Record<string, string> = {}) {
    const repo = await makeRepo({ files, name: title.toLowerCase().replace(/\W+/g, "-") });
    cleanups.push(() => repo.cleanup());
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const task = (await srv.api("POST", "/tasks", { title, repositories: [{ repositoryId: r.body.id }] })).body;
    const s = await srv.api("POST", `/tasks/${task.id}/sessions`, { agent: "scripted" });
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const ws = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body;
    return { repo, task, session: s.body, worktree: ws.workspacePath as string };
  }

  it("SBX-1 SBX-2 SBX-5: from the agent's own shell every attack fails and nothing changes; normal work (edit, node, git commit) works and Changes equal git", async () => {
    const { srv, person } = await server();
    const other = await session(srv, "Other task");
    writeFileSync(join(other.worktree, "other-secret.txt"), "OTHER-TASK-SECRET\n");
    const mine = await session(srv, "Attacked task");
    expect(mine.session.sandbox).toBe("confined");
    const outside = join(OUTSIDE_DIR, `sbx-outside-${Date.now()}`);
    const inMainCheckout = join(mine.repo.path, "pwned.txt");
    const port = new URL(srv.url).port;
    const before = gitSync(mine.repo.path, "for-each-ref");
    const msgs = await turn(
      srv,
      mine.session.id,
      [
        `run cat ${person.sshKey}`,
        `run cat ${join(person.home, ".aws", "credentials")}`,
        `run cat ${join(srv.home, "grove.db")}`,
        `run cat ${join(srv.home, "credential.key")}`,
        `run cat ${join(srv.home, "person-token")}`,
        `run cat ${join(other.worktree, "other-secret.txt")}`,
        `run ls ${dirname(other.worktree)}`,
        `run echo pwned > ${outside}`,
        `run echo pwned > ${join(srv.home, "pwned.txt")}`,
        `run echo pwned > ${join(mine.worktree, ".git")}`,
        `run echo pwned > ${join(gitSync(mine.repo.path, "rev-parse", "--absolute-git-dir").trim(), "config")}`,
        `run cat /proc/${process.pid}/environ`,
        `run curl -sS -f -m 10 ${srv.url}/api/v1/health`,
        `run curl -sS -f -m 10 --noproxy '*' ${srv.url}/api/v1/health`,
        `run node -e "fetch('${srv.url}/api/v1/health').then((r) => console.log('status', r.status), (e) => { console.log(String(e.cause ?? e)); process.exit(3); })"`,
        `run curl -sS -f -m 10 -X POST -H 'content-type: application/json' -d '{"modeId":"ask"}' ${srv.url}/api/v1/sessions/${mine.session.id}/mode`,
        `run curl -sS -f -m 10 ${srv.url}/api/v1/sessions/${mine.session.id}/permissions`,
        `run curl -sS -f -m 10 http://example.com/`,
        `run curl -sS -f -m 10 https://example.com/`,
      ].join("\n"),
    );
    // The repository's own checkout: outside the sandbox's view; this one lives under /tmp here,
    // so inside it is a directory of the agent's private /tmp and the write lands there.
    const inCheckout = await turn(srv, mine.session.id, `run echo pwned > ${inMainCheckout}`);
    expect(runResults(inCheckout)).toHaveLength(1);
    const results = runResults(msgs);
    expect(results).toHaveLength(19);
    for (const [i, r] of results.entries()) {
      expect(r.code, `attempt ${i}: ${r.output}`).not.toBe(0);
      expect(r.output).not.toContain(person.secret);
      expect(r.output).not.toContain("OTHER-TASK-SECRET");
      expect(r.output).not.toContain('"status":"ok"');
    }
    // Nothing changed outside the worktree.
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(inMainCheckout)).toBe(false);
    expect(existsSync(join(srv.home, "pwned.txt"))).toBe(false);
    expect(gitSync(mine.repo.path, "for-each-ref")).toBe(before);
    expect(readdirSync(join(srv.home, "tasks")).length).toBe(2);
    // The proxy refused Grove's port and the host off the list, each a transcript note and a count.
    const notes = blockedNotes(msgs);
    expect(notes).toEqual(expect.arrayContaining([`127.0.0.1:${port}`, "example.com:80", "example.com:443"]));
    const s = (await srv.api("GET", `/sessions/${mine.session.id}`)).body;
    expect(s.blockedConnections).toBe(notes.length);
    expect(s.modes?.currentModeId).toBe("auto");

    // Normal work: an edit, node in the worktree, a commit by the agent's own git.
    const work = await turn(
      srv,
      mine.session.id,
      [
        "write hello.txt hi from the agent",
        `run node -e "require('fs').writeFileSync('answer.txt', String(6 * 7))" && cat answer.txt`,
        "run git add hello.txt && git commit -q -m 'agent commit' && git log -1 --format=%s",
        "write later.txt uncommitted",
      ].join("\n"),
    );
    const ok = runResults(work);
    expect(ok.map((r) => r.code)).toEqual([0, 0]);
    expect(ok[0]!.output).toBe("42");
    expect(ok[1]!.output).toBe("agent commit");
    const wt = (...a: string[]) => gitSync(mine.worktree, ...a);
    expect(wt("log", "-1", "--format=%s").trim()).toBe("agent commit");
    const changes = (await srv.api("GET", `/tasks/${mine.task.id}/changes`)).body.repositories[0];
    const status = wt("status", "--porcelain=v1", "-uall")
      .split("\n")
      .filter(Boolean)
      .map((l) => l.slice(3))
      .sort();
    expect(changes.files.map((f: any) => f.path).sort()).toEqual(expect.arrayContaining(status));
    expect(changes.ahead).toBe(Number(wt("rev-list", "--count", `main..HEAD`).trim()));
    expect(status).toEqual(["answer.txt", "later.txt"]);
  });
});
