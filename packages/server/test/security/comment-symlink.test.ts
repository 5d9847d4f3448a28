import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { tempDir } from "../fixture/git.js";
import { startTestServer, waitForSession, type TestServer } from "../fixture/server.js";
import { reviewTask } from "../review/helpers.js";

describe.each(ONE_DATABASE)("SEC-2 comment lines are read confined on every read (%s)", (kind) => {
  let srv: TestServer | undefined;
  let outside: string | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
    if (outside) rmSync(outside, { recursive: true, force: true });
    outside = undefined;
  });

  it("SEC-2 a symlink made after a comment never puts outside content in the prompt (nor in the comment list)", async () => {
    srv = await startTestServer(kind);
    outside = await tempDir("grove-outside-");
    const t = await reviewTask(srv, { files: { "notes.txt": "alpha\nbeta\ngamma\n" } });
    const c = await srv.api("POST", `/tasks/${t.task.id}/comments`, { repositoryId: t.repository.id, path: "notes.txt", line: 2, body: "look here" });
    expect(c.status).toBe(201);
    // The same line text at the same place, so only confinement (not the outdated check) keeps
    // the surrounding outside lines out of the prompt.
    const secret = join(outside, "credentials");
    writeFileSync(secret, "TOPSECRET-1\nbeta\nTOPSECRET-3\n");
    rmSync(join(t.worktree, "notes.txt"));
    symlinkSync(secret, join(t.worktree, "notes.txt"));

    const list = await srv.api("GET", `/tasks/${t.task.id}/comments`);
    expect(list.body[0]).toMatchObject({ id: c.body.id, outdated: true });
    const p = await srv.api("POST", `/sessions/${t.session.id}/prompt`, { commentIds: [c.body.id] });
    expect(p.status).toBe(202);
    await waitForSession(srv.api, t.session.id, ["waiting_for_input", "failed"]);
    const messages = (await srv.api("GET", `/sessions/${t.session.id}/messages`)).body as { role: string; text: string }[];
    const prompt =
      messages
        .filter((m) => m.role === "user")
        .map((m) => m.text)
        .pop() ?? "";
    expect(prompt).toContain("notes.txt, line 2");
    expect(prompt).toContain("> 2 | beta");
    expect(JSON.stringify(messages)).not.toContain("TOPSECRET");
  });
});
