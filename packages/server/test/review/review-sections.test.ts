import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runGrove } from "../cli/run-cli.js";
import { ONE_DATABASE } from "../fixture/db.js";
import { startTestServer, type TestServer } from "../fixture/server.js";
import { reviewTask } from "./helpers.js";

/** The + and − lines of a patch, without headers. */
const changed = (patch: string) => patch.split("\n").filter((l) => /^[+-](?![+-]{2} )/.test(l));

describe.each(ONE_DATABASE)("RV-7 committed and uncommitted parts of one file (%s)", (kind) => {
  let srv: TestServer;
  let t: Awaited<ReturnType<typeof reviewTask>>;
  const diff = (path: string, scope?: string) =>
    srv.api("GET", `/tasks/${t.task.id}/changes/diff?repositoryId=${t.repository.id}&path=${encodeURIComponent(path)}${scope ? `&scope=${scope}` : ""}`);

  beforeAll(async () => {
    srv = await startTestServer(kind);
    t = await reviewTask(srv, { files: { "a.txt": "base\n" }, prompt: "write a.txt committed\ncommit task: a\nwrite only-committed.txt c\ncommit task: c" });
    // Edited again after the commit, plus a file that is only uncommitted.
    writeFileSync(join(t.worktree, "a.txt"), "edited again\n");
    writeFileSync(join(t.worktree, "new.txt"), "new\n");
  }, 60_000);
  afterAll(async () => srv?.close());

  test("RV-7: Changes flags a file committed on the branch and edited again as both committed and uncommitted", async () => {
    const c = await srv.api("GET", `/tasks/${t.task.id}/changes`);
    expect(c.status).toBe(200);
    const files = Object.fromEntries((c.body.repositories[0].files as any[]).map((f) => [f.path, f]));
    expect(files["a.txt"]).toMatchObject({ status: "modified", unstaged: true, committed: true });
    expect(files["only-committed.txt"]).toMatchObject({ status: "added", staged: false, unstaged: false, committed: true });
    expect(files["new.txt"]).toMatchObject({ status: "untracked", committed: false });
  });

  test("RV-7: ?scope= gives each part its own patch; the default stays base → working tree", async () => {
    const committed = await diff("a.txt", "committed");
    expect(committed.status).toBe(200);
    expect(committed.body.scope).toBe("committed");
    expect(changed(committed.body.patch)).toEqual(["-base", "+committed"]);
    const uncommitted = await diff("a.txt", "uncommitted");
    expect(changed(uncommitted.body.patch)).toEqual(["-committed", "+edited again"]);
    const all = await diff("a.txt");
    expect(changed(all.body.patch)).toEqual(["-base", "+edited again"]);
    // An untracked file is wholly uncommitted; a committed-only file has no uncommitted part.
    expect(changed((await diff("new.txt", "uncommitted")).body.patch)).toEqual(["+new"]);
    expect((await diff("new.txt", "committed")).body.patch).toBe("");
    expect((await diff("only-committed.txt", "uncommitted")).body.patch).toBe("");
    const bad = await diff("a.txt", "staged");
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_request");
  });

  test("RV-7: grove task diff agrees: the file is listed as both, --scope prints each part", async () => {
    const list = await runGrove(["task", "diff", t.task.id, "--server", srv.url]);
    expect(list.code, list.stderr).toBe(0);
    const line = list.stdout.split("\n").find((l) => l.includes("a.txt"));
    expect(line).toMatch(/committed, uncommitted/);
    expect(list.stdout.split("\n").find((l) => l.includes("only-committed.txt"))).not.toMatch(/uncommitted/);
    const part = await runGrove(["task", "diff", t.task.id, "--path", "a.txt", "--scope", "committed", "--server", srv.url]);
    expect(part.code, part.stderr).toBe(0);
    expect(changed(part.stdout)).toEqual(["-base", "+committed"]);
    const rest = await runGrove(["task", "diff", t.task.id, "--path", "a.txt", "--scope", "uncommitted", "--server", srv.url]);
    expect(changed(rest.stdout)).toEqual(["-committed", "+edited again"]);
  });
});
