import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeRepo, tempDir, type TestRepo } from "../fixture/git.js";
import { apiClient, spawnServer, waitForSession, type ChildServer } from "../fixture/server.js";
import { runGrove } from "../cli/run-cli.js";

/**
 * REV-2: who the person's commits are by. The server runs as a child process with a fresh HOME
 * (no global git config), against a repository without its own identity, so nothing but
 * Grove's own rule decides.
 */
describe("REV-2 git identity of the person's commits", () => {
  const dirs: string[] = [];
  let child: ChildServer | undefined;
  let repo: TestRepo | undefined;
  afterEach(async () => {
    if (child && child.child.exitCode === null) {
      child.child.kill("SIGTERM");
      await child.exited;
    }
    child = undefined;
    await repo?.cleanup();
    repo = undefined;
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  async function serve(home: string, fakeHome: string, extra: Record<string, string> = {}) {
    child = await spawnServer({
      GROVE_HOME: home,
      HOME: fakeHome,
      XDG_CONFIG_HOME: join(fakeHome, ".config"),
      GIT_CONFIG_GLOBAL: undefined,
      GIT_CONFIG_NOSYSTEM: "1",
      GROVE_GIT_AUTHOR_NAME: undefined,
      GROVE_GIT_AUTHOR_EMAIL: undefined,
      ...extra,
    });
    return apiClient(child.url);
  }

  it("REV-2 no identity anywhere → 409 git_identity_missing naming the fix, nothing staged; with GROVE_GIT_AUTHOR_NAME/EMAIL the commit is theirs; the agent's commit keeps its own", async () => {
    const home = await tempDir("grove-home-");
    const fakeHome = await tempDir("grove-fake-home-");
    dirs.push(home, fakeHome);
    repo = await makeRepo({ name: "identity-repo" });
    repo.git("config", "--unset", "user.name");
    repo.git("config", "--unset", "user.email");
    let api = await serve(home, fakeHome);
    const r = await api("POST", "/repositories", { path: repo.path });
    expect(r.status).toBe(201);
    const t = await api("POST", "/tasks", { title: "Identity", repositories: [{ repositoryId: r.body.id }] });
    const s = await api("POST", `/tasks/${t.body.id}/sessions`, { prompt: "write agent.txt by agent\ncommit agent work\nwrite mine.txt by the person" });
    await waitForSession(api, s.body.id, ["waiting_for_input"]);
    const wt = (await api("GET", `/sessions/${s.body.id}/workspace`)).body.repositories[0];
    const branch = wt.worktreeBranch as string;
    // The agent's commit: its own identity, untouched by Grove's rule.
    expect(repo.git("log", "-1", "--format=%an <%ae>", branch).trim()).toBe("Grove Scripted Agent <scripted-agent@grove.invalid>");

    const refused = await api("POST", `/tasks/${t.body.id}/commit`, { message: "mine" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "git_identity_missing", details: { fix: expect.stringContaining("git config --global user.email") } });
    expect(refused.body.error.details.fix).toContain("GROVE_GIT_AUTHOR_NAME");
    // Nothing staged: the person's file is still untracked, the branch did not move.
    expect(repo.git("-C", wt.worktreePath, "status", "--porcelain").trim()).toBe("?? mine.txt");
    expect(repo.git("log", "-1", "--format=%s", branch).trim()).toBe("agent work");
    const cli = await runGrove(["task", "commit", t.body.id, "-m", "mine", "--server", child!.url]);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain("git_identity_missing");
    // The fix is printed to the person, not only in --json details.
    expect(cli.stderr).toMatch(/\nfix: git config --global user\.name .*GROVE_GIT_AUTHOR_NAME/);

    child!.child.kill("SIGTERM");
    await child!.exited;
    api = await serve(home, fakeHome, { GROVE_GIT_AUTHOR_NAME: "Pat Person", GROVE_GIT_AUTHOR_EMAIL: "pat@example.com" });
    const ok = await api("POST", `/tasks/${t.body.id}/commit`, { message: "mine" });
    expect(ok.status).toBe(201);
    expect(repo.git("log", "-1", "--format=%an <%ae> / %cn <%ce> / %s", branch).trim()).toBe(
      "Pat Person <pat@example.com> / Pat Person <pat@example.com> / mine",
    );
    expect(existsSync(join(wt.worktreePath, "mine.txt"))).toBe(true);
  });
});
