import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { ONE_DATABASE } from "../fixture/db.js";
import { gitSync, tempDir } from "../fixture/git.js";
import { startSshd, type LocalSshd } from "./harness/sshd.js";
import { addRemote, launch, makeRemoteRepo, remoteWorld, type RemoteWorld } from "./helpers.js";

describe.each(ONE_DATABASE)("RR-3 executor policy (%s)", (kind) => {
  let w: RemoteWorld | undefined;
  let sshd: LocalSshd;
  let sshRoot: string;
  const savedSsh = process.env.GIT_SSH_COMMAND;

  beforeAll(async () => {
    sshRoot = await tempDir("grove-ssh-repos-");
    sshd = await startSshd(join(await tempDir("grove-sshd-"), "sshd"), sshRoot);
  });
  afterAll(async () => {
    await sshd?.close();
  });
  afterEach(async () => {
    if (savedSsh === undefined) delete process.env.GIT_SSH_COMMAND;
    else process.env.GIT_SSH_COMMAND = savedSsh;
    await w?.close();
    w = undefined;
  });

  test("RR-3 executor over HTTP: the stored credential is never used; the fetch goes through the configured origin", async () => {
    w = await remoteWorld(kind, "github", { token: null });
    const remote = makeRemoteRepo(w.root, "acme/open");
    const repo = await addRemote(w.srv, {
      url: `${w.http.url}/acme/open`,
      provider: "github",
      credential: { token: "unused-secret" },
      credentialPolicy: "executor",
    });
    expect(repo).toMatchObject({ credentialPolicy: "executor", hasCredential: true });
    const pushed = remote.commit("x.txt", "x\n");
    const before = w.http.requests.length;
    const { session } = await launch(w.srv, [{ repositoryId: repo.id }]);
    expect(session.state).toBe("waiting_for_input");
    expect(w.http.requests.filter((r) => r.authed)).toHaveLength(0);
    expect(w.http.requests.slice(before).filter((r) => r.service === "info/refs" && r.status === 200)).toHaveLength(1);
    const ws = await w.srv.api("GET", `/sessions/${session.id}/workspace`);
    expect(gitSync(ws.body.repositories[0].worktreePath, "rev-parse", "HEAD").trim()).toBe(pushed);
  });

  test("RR-3 executor over SSH: the host's ssh key is used non-interactively and the SSH origin is never rewritten to HTTPS", async () => {
    w = await remoteWorld(kind, "github", { token: null });
    const remote = makeRemoteRepo(sshRoot, "acme/private");
    // The host's own credentials: its ssh configuration (here: GIT_SSH_COMMAND with the generated key).
    process.env.GIT_SSH_COMMAND = sshd.sshCommand;
    const url = `ssh://${sshd.user}@127.0.0.1:${sshd.port}/acme/private.git`;
    const repo = await addRemote(w.srv, { url, provider: "github", credentialPolicy: "executor", name: "private" });
    expect(gitSync(repo.path, "config", "remote.origin.url").trim()).toBe(url);
    const pushed = remote.commit("y.txt", "y\n");
    const { session } = await launch(w.srv, [{ repositoryId: repo.id }]);
    expect(session.state).toBe("waiting_for_input");
    const ws = await w.srv.api("GET", `/sessions/${session.id}/workspace`);
    expect(gitSync(ws.body.repositories[0].worktreePath, "rev-parse", "HEAD").trim()).toBe(pushed);
    expect(gitSync(repo.path, "config", "remote.origin.url").trim()).toBe(url);
    expect(w.http.requests).toHaveLength(0);

    // Non-interactive: without the key, ssh fails at once (BatchMode) instead of asking.
    process.env.GIT_SSH_COMMAND = `ssh -o IdentitiesOnly=yes -i /dev/null -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no`;
    remote.commit("z.txt", "z\n");
    const t0 = Date.now();
    const failed = await launch(w.srv, [{ repositoryId: repo.id }], "no key");
    expect(failed.session.state).toBe("failed");
    expect(failed.session.lastError).toMatchObject({ code: "refresh_auth_failed", repositoryId: repo.id });
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});
