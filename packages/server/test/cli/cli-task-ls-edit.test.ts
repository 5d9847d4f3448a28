import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { runGrove } from "./run-cli.js";

// CLI-12…CLI-14 (docs/specs/cli.md): the board's filters, worktree paths and task edits, with the
// bundled CLI against a real server, real git and the real scripted agent.
describe("CLI-12 task ls filters, CLI-13 task show worktrees, CLI-14 task edit", () => {
  let srv: TestServer;
  let alpha: TestRepo;
  let beta: TestRepo;
  const ids = { parser: "", docs: "", login: "" };
  const grove = (...args: string[]) => runGrove([...args, "--server", srv.url]);
  const lsIds = async (...args: string[]) => {
    const r = await grove("task", "ls", ...args, "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    return (JSON.parse(r.stdout) as { id: string }[]).map((t) => t.id);
  };

  beforeAll(async () => {
    srv = await startTestServer("sqlite");
    alpha = await makeRepo({ name: "alpha" });
    beta = await makeRepo({ name: "beta" });
    for (const r of [alpha, beta]) expect((await grove("repo", "add", r.path)).code).toBe(0);
    // Created in this order, so newest first is fix-login, docs-beta, parser.
    for (const [key, title, repo, description] of [
      ["parser", "Rewrite the parser", "alpha", "tokens first"],
      ["docs", "Write docs", "beta", "explain the parser's tokens"],
      ["login", "Fix the login bug", "alpha", ""],
    ] as const) {
      const r = await grove("task", "create", "--title", title, "--repo", repo, "--description", description, "--quiet");
      expect(r.code).toBe(0);
      ids[key] = r.stdout.trim();
    }
    expect((await srv.api("PATCH", `/tasks/${ids.docs}`, { state: "review" })).status).toBe(200);
  });
  afterAll(async () => {
    await srv?.close();
    await alpha?.cleanup();
    await beta?.cleanup();
  });

  it("CLI-12 task ls lists newest first, like the board", async () => {
    expect(await lsIds()).toEqual([ids.login, ids.docs, ids.parser]);
    const human = (await grove("task", "ls")).stdout.trimEnd().split("\n");
    expect(human[0]).toMatch(/^ID\s+STATE\s+TITLE$/);
    expect(human.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([ids.login, ids.docs, ids.parser]);
  });

  it("CLI-12 --state, --repo (name or id), --search and --limit filter on the server and combine", async () => {
    expect(await lsIds("--state", "review")).toEqual([ids.docs]);
    expect(await lsIds("--state", "todo,review")).toEqual([ids.login, ids.docs, ids.parser]);
    expect(await lsIds("--repo", "alpha")).toEqual([ids.login, ids.parser]);
    const betaId = ((await srv.api("GET", "/repositories")).body as { id: string; name: string }[]).find((r) => r.name === "beta")!.id;
    expect(await lsIds("--repo", betaId)).toEqual([ids.docs]);
    expect(await lsIds("--search", "tokens")).toEqual([ids.docs, ids.parser]);
    expect(await lsIds("--search", "tokens", "--repo", "alpha")).toEqual([ids.parser]);
    expect(await lsIds("--limit", "2")).toEqual([ids.login, ids.docs]);
  });

  it("CLI-12 --limit says when more tasks match; nothing matching says so", async () => {
    const limited = await grove("task", "ls", "--limit", "1");
    expect(limited.code).toBe(0);
    expect(limited.stdout).toContain(ids.login);
    expect(limited.stdout).not.toContain(ids.docs);
    expect(limited.stdout).toMatch(/more match: raise --limit/);
    const none = await grove("task", "ls", "--search", "no such words anywhere");
    expect(none.stdout).toBe("no tasks match\n");
  });

  it("CLI-12 a bad filter is a coded error naming the flag, before any listing", async () => {
    const state = await grove("task", "ls", "--state", "sleeping");
    expect(state.code).toBe(1);
    expect(state.stdout).toBe("");
    expect(state.stderr).toMatch(/^error: invalid_request: --state\b[^\n]*\n$/);
    const limit = await grove("task", "ls", "--limit", "0");
    expect(limit.code).toBe(1);
    expect(limit.stderr).toBe('error: invalid_arguments: --limit must be a positive whole number, got "0"\n');
    const tooMany = await grove("task", "ls", "--limit", "100000");
    expect(tooMany.code).toBe(1);
    expect(tooMany.stderr).toMatch(/^error: invalid_request: --limit\b/);
    const repo = await grove("task", "ls", "--repo", "gamma");
    expect(repo.code).toBe(1);
    expect(repo.stderr).toMatch(/^error: not_found: no repository with id or name "gamma"/);
  });

  it("CLI-12 GET /tasks validates the filters: 400 invalid_request naming the field", async () => {
    const r = await srv.api("GET", "/tasks?state=sleeping&order=newest");
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    expect(r.body.error.details.field).toMatch(/^state\b/);
  });

  it("CLI-13 CLI-11 task show prints each repository's worktree path and branch once the workspace exists; task ls on one runner has no RUNNER column", async () => {
    const before = await grove("task", "show", ids.parser);
    expect(before.code).toBe(0);
    expect(before.stdout).toMatch(/^ {4}worktree: none yet/m);
    const started = await grove("task", "start", ids.parser, "--agent", "scripted", "--prompt", "say hi", "--wait", "--quiet");
    expect(started.code).toBe(0);
    const env = (await srv.api("GET", `/tasks/${ids.parser}/environment`)).body as {
      workspacePath: string;
      repositories: { worktreePath: string; worktreeBranch: string }[];
    };
    const wt = env.repositories[0]!;
    const shown = await grove("task", "show", ids.parser);
    expect(shown.stdout).toMatch(/^ {2}alpha \(repo_\S+\) {2}base main$/m);
    expect(shown.stdout).toContain(`\n    branch: ${wt.worktreeBranch}\n    worktree: ${wt.worktreePath}\n`);
    expect(shown.stdout).toContain(`workspace: ${env.workspacePath}\n`);
    const json = JSON.parse((await grove("task", "show", ids.parser, "--json")).stdout) as { environment: { repositories: { worktreePath: string }[] } };
    expect(json.environment.repositories[0]!.worktreePath).toBe(wt.worktreePath);

    // CLI-11: every task on this one runner: a RUNNER column would repeat one id; --json keeps it.
    const ls = (await grove("task", "ls")).stdout.trimEnd().split("\n");
    expect(ls[0]).toMatch(/^ID\s+STATE\s+TITLE$/);
    expect(ls.find((l) => l.startsWith(ids.parser))).toMatch(new RegExp(`^${ids.parser}\\s+\\S.*\\s{2}Rewrite the parser$`));
    const listed = JSON.parse((await grove("task", "ls", "--json")).stdout) as { id: string; runnerId: string | null }[];
    expect(listed.find((t) => t.id === ids.parser)!.runnerId).toMatch(/\S/);
  });

  it("CLI-14 task edit changes the title and the description, each alone or both", async () => {
    const title = await grove("task", "edit", ids.login, "--title", "Fix the login redirect");
    expect(title.code).toBe(0);
    expect(title.stdout).toBe(`updated task ${ids.login}: Fix the login redirect\n`);
    let t = (await srv.api("GET", `/tasks/${ids.login}`)).body as { title: string; description: string };
    expect(t).toMatchObject({ title: "Fix the login redirect", description: "" });
    expect((await grove("task", "edit", ids.login, "--description", "after login, go back where you were")).code).toBe(0);
    t = (await srv.api("GET", `/tasks/${ids.login}`)).body;
    expect(t).toMatchObject({ title: "Fix the login redirect", description: "after login, go back where you were" });
    const both = JSON.parse((await grove("task", "edit", ids.login, "--title", "Login redirect", "--description", "", "--json")).stdout) as {
      title: string;
      description: string;
    };
    expect(both).toMatchObject({ title: "Login redirect", description: "" });
  });

  it("CLI-14 task edit with nothing to change or a blank title changes nothing", async () => {
    const nothing = await grove("task", "edit", ids.login);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toBe("error: invalid_arguments: nothing to change: pass --title, --description or both\n");
    const blank = await grove("task", "edit", ids.login, "--title", "  ", "--description", "must not land");
    expect(blank.code).toBe(1);
    expect(blank.stderr).toMatch(/^error: invalid_request: /);
    const t = (await srv.api("GET", `/tasks/${ids.login}`)).body as { title: string; description: string };
    expect(t).toMatchObject({ title: "Login redirect", description: "" });
    const missing = await grove("task", "edit", "task_missing", "--title", "x");
    expect(missing.stderr).toMatch(/^error: not_found: /);
  });

  it("CLI-13 task show of an archived task says its worktrees are removed", async () => {
    expect((await srv.api("POST", `/tasks/${ids.parser}/archive`, {})).status).toBe(202);
    const env = await waitForEnvironmentDeleted(srv, ids.parser);
    expect(env).toBe(true);
    const shown = await grove("task", "show", ids.parser);
    expect(shown.stdout).toMatch(/archived: /);
    expect(shown.stdout).toMatch(/^ {4}worktree: removed/m);
  });
});

async function waitForEnvironmentDeleted(srv: TestServer, taskId: string): Promise<boolean> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    const r = await srv.api("GET", `/tasks/${taskId}/environment`);
    if (r.status === 404 || (r.body.repositories as { status: string }[]).every((x) => x.status === "deleted")) return true;
    await new Promise((res) => setTimeout(res, 100));
  }
  return false;
}
