import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { tempDir } from "../fixture/git.js";
import { waitFor, waitForSession, serverPerFile } from "../fixture/server.js";
import { exists, registerRepo } from "./helpers.js";

describe.each(ONE_DATABASE)("WT-9 repository checkout settings (%s)", (kind) => {
  // Each test registers a repository of its own name and makes its own task: one server serves them all.
  const perFile = serverPerFile(kind);

  it("WT-9 copy-files globs copy ignored files into a new worktree without following symlinks out; the setup script runs there", async () => {
    const srv = await perFile.start();
    const { repo, id } = await registerRepo(srv, "configured", {}, { ".gitignore": ".env*\nconfig/*.local\nsecrets/\n", "config/app.json": "{}\n" });
    perFile.track(repo);
    writeFileSync(join(repo.path, ".env"), "TOKEN=abc\n");
    writeFileSync(join(repo.path, "config", "db.local"), "db=1\n");
    mkdirSync(join(repo.path, "secrets", "deep"), { recursive: true });
    writeFileSync(join(repo.path, "secrets", "deep", "key.pem"), "KEY\n");
    const outside = await tempDir("grove-outside-");
    perFile.track({ path: outside, git: () => "", cleanup: () => rm(outside, { recursive: true, force: true }) });
    writeFileSync(join(outside, "stolen.txt"), "outside secret\n");
    symlinkSync(join(outside, "stolen.txt"), join(repo.path, ".env.outside"));
    symlinkSync(join(repo.path, ".env"), join(repo.path, ".env.inside"));

    const patch = await srv.api("PATCH", `/repositories/${id}`, {
      copyFiles: [".env*", "config/*.local", "secrets/**"],
      setupScript: 'printf "%s" "$GROVE_SOURCE_PATH" > setup-ran.txt',
    });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ copyFiles: [".env*", "config/*.local", "secrets/**"] });

    const t = await srv.api("POST", "/tasks", { title: "Copy", repositories: [{ repositoryId: id }] });
    const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const wt = (await srv.api("GET", `/sessions/${s.body.id}/workspace`)).body.workspacePath as string;
    expect(readFileSync(join(wt, ".env"), "utf8")).toBe("TOKEN=abc\n");
    expect(readFileSync(join(wt, ".env.inside"), "utf8")).toBe("TOKEN=abc\n");
    expect(readFileSync(join(wt, "config", "db.local"), "utf8")).toBe("db=1\n");
    expect(readFileSync(join(wt, "secrets", "deep", "key.pem"), "utf8")).toBe("KEY\n");
    expect(exists(join(wt, ".env.outside"))).toBe(false);
    expect(readFileSync(join(wt, "setup-ran.txt"), "utf8")).toBe(repo.path);
    const msgs = (await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { role: string; text: string }[];
    expect(msgs.some((m) => m.role === "system" && m.text.includes(".env.outside") && m.text.includes("outside"))).toBe(true);
  });

  it("WT-9 a failing setup script is a warning on the session, not a launch failure", async () => {
    const srv = await perFile.start();
    const { repo, id } = await registerRepo(srv, "flaky", { setupScript: "echo broken-setup >&2; exit 3" });
    perFile.track(repo);
    const t = await srv.api("POST", "/tasks", { title: "Flaky", repositories: [{ repositoryId: id }] });
    const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, { prompt: "say fine" });
    expect(s.status).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const warning = await waitFor(async () => {
      const msgs = (await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { role: string; text: string; data: { kind?: string } }[];
      return msgs.find((m) => m.role === "system" && m.data?.kind === "setup_script");
    }, "setup warning");
    expect(warning.text).toContain("exited with 3");
    expect(warning.text).toContain("broken-setup");
  });

  it("WT-9 SEC-3 settings are validated: bad globs, missing default branch, bad template → 400; unknown id → 404; nothing changed", async () => {
    const srv = await perFile.start();
    const { repo, id } = await registerRepo(srv, "strict");
    perFile.track(repo);
    const before = (await srv.api("GET", `/repositories/${id}`)).body;
    for (const [body, code] of [
      [{ copyFiles: ["../escape"] }, "invalid_request"],
      [{ copyFiles: ["/etc/passwd"] }, "invalid_request"],
      [{ copyFiles: [".git/config"] }, "invalid_request"],
      [{ defaultBranch: "nope" }, "base_branch_not_found"],
      [{ defaultBranch: "--upload-pack=x" }, "invalid_branch_name"],
      [{ branchTemplate: "bad..{suffix}" }, "invalid_branch_name"],
      [{ pullBeforeWorktree: "yes" }, "invalid_request"],
      [{ unknownField: 1 }, "invalid_request"],
    ] as const) {
      const r = await srv.api("PATCH", `/repositories/${id}`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code, JSON.stringify(body)).toBe(code);
    }
    expect((await srv.api("GET", `/repositories/${id}`)).body).toEqual(before);
    expect((await srv.api("PATCH", "/repositories/repo_nope", { pullBeforeWorktree: true })).status).toBe(404);
    const ok = await srv.api("PATCH", `/repositories/${id}`, { branchTemplate: "feat/{taskId}-{suffix}", setupScript: null });
    expect(ok.status).toBe(200);
    expect(ok.body.branchTemplate).toBe("feat/{taskId}-{suffix}");
  });
});
