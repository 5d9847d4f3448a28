import { rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { crashServers } from "../fixture/crash.js";
import { DATABASES } from "../fixture/db.js";
import { tempDir } from "../fixture/git.js";
import { waitForSession } from "../fixture/server.js";
import { startGitHttpServer } from "../remote/harness/git-http-server.js";
import { makeRemoteRepo } from "../remote/harness/repos.js";
import { uniqueToken } from "../remote/helpers.js";
import { startFakeProvider } from "./fake-provider.js";

/**
 * REV-3 crash safety of pull-request creation with the real `grove serve`: the process dies right
 * after the provider's 201, before Grove recorded the pull request (fault point
 * `pr.after_create`). The retry on a new server finds the open pull request and adopts it.
 */
describe.each(DATABASES)("pull-request creation survives a crash after the provider's answer (%s)", { timeout: 240_000 }, (kind) => {
  const crash = crashServers(kind, { GROVE_PR_REFRESH_MS: "0" });
  const cleanups = crash.cleanups;

  it("REV-3 crash at pr.after_create: the retry returns the same pull request and the provider holds exactly one", async () => {
    const { start } = await crash.home();
    const root = await tempDir("grove-pr-crash-");
    const token = uniqueToken();
    const http = await startGitHttpServer({ root, kind: "github", token });
    cleanups.push(async () => {
      await http.close();
      await rm(root, { recursive: true, force: true });
    });
    makeRemoteRepo(root, "acme/widget", { "README.md": "# widget\n" });
    const fake = await startFakeProvider("github", token, `${http.url}/acme/widget`);
    cleanups.push(() => fake.close());
    const first = await start("pr.after_create:exit");
    const repo = await first.api("POST", "/repositories", { url: `${http.url}/acme/widget`, provider: "github", credential: { token }, apiUrl: fake.apiUrl });
    expect(repo.status).toBe(201);
    const task = await first.api("POST", "/tasks", { title: "crash PR", repositories: [{ repositoryId: repo.body.id }] });
    const session = await first.api("POST", `/tasks/${task.body.id}/sessions`, { prompt: "write f.txt F\ncommit task work" });
    await waitForSession(first.api, session.body.id, ["waiting_for_input"]);

    await first.api("POST", `/tasks/${task.body.id}/pull-requests`, { title: "Add f" }).catch(() => undefined);
    expect((await first.server.exited).code).toBe(137);
    expect(fake.prs).toHaveLength(1);

    const second = await start();
    expect((await second.api("GET", `/tasks/${task.body.id}/pull-requests`)).body).toEqual([]);
    const retry = await second.api("POST", `/tasks/${task.body.id}/pull-requests`, { title: "Add f" });
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.body).toEqual([expect.objectContaining({ number: 1, state: "open" })]);
    expect(fake.prs).toHaveLength(1);
    expect(fake.seen.filter((s) => s.method === "POST" && s.path.endsWith("/pulls"))).toHaveLength(1);
    expect((await second.api("GET", `/tasks/${task.body.id}/pull-requests`)).body).toEqual([expect.objectContaining({ number: 1 })]);
  });
});
