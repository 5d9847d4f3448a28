import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { signForward } from "../../src/api/forward-sign.js";
import { makeRepo } from "../fixture/git.js";
import { waitForSession } from "../fixture/server.js";
import { canUnshare, stopRunner } from "./isolated.js";
import { threeRunners } from "./three-runners.js";
import { cleanupsAfterEach } from "../fixture/cleanups.js";

/** Every file under `dir`, concatenated (logs, state): where a leaked secret would be. */
function allText(dir: string): string {
  let out = "";
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    try {
      out += readFileSync(join(e.parentPath, e.name), "latin1");
    } catch {
      // vanished meanwhile
    }
  }
  return out;
}

describe("the cluster secret (PostgreSQL)", { timeout: 300_000 }, () => {
  const cleanups = cleanupsAfterEach();
  beforeAll(() => expect(canUnshare(), "unshare --mount with a tmpfs must work on this machine").toBe(true));

  it("RUN-12 SBX-5: a forwarded request without a signature, with a wrong secret or with the secret itself is 401 before anything runs; the secret is in no log, no home file and no response", async () => {
    const { secret, homes, a, b, c } = await threeRunners(cleanups, { env: { GROVE_LOG_LEVEL: "debug" } });
    const reg = await c.api("POST", "/repositories", { path: (await makeRepo()).path });
    const task = (await a.api("POST", "/tasks", { title: "Secret", repositories: [{ repositoryId: reg.body.id }], runnerLabels: ["gpu"] })).body as {
      id: string;
    };
    const started = await a.api("POST", `/tasks/${task.id}/sessions`, { prompt: "write a.txt x" });
    expect(started.status).toBe(201);
    await waitForSession(b.api, started.body.id, ["waiting_for_input"], 60_000);
    const responses: string[] = [JSON.stringify(started.body)];

    const direct = (headers: Record<string, string>) => fetch(`${c.url}/api/v1/tasks/${task.id}/changes`, { headers });
    const cases = {
      noSecret: await direct({ "x-grove-forwarded-by": "runner_a" }),
      wrongSecret: await direct({ "x-grove-forwarded-by": "runner_a", "x-grove-cluster-secret": `${secret.slice(0, -1)}0` }),
      secretWithoutRunner: await direct({ "x-grove-cluster-secret": "not-the-secret-at-all" }),
      // SBX-5: the secret itself is no credential; forwards are signed.
      theSecretItself: await direct({ "x-grove-forwarded-by": "runner_a", "x-grove-cluster-secret": secret }),
    };
    for (const [what, r] of Object.entries(cases)) {
      const text = await r.text();
      responses.push(text);
      let code: string | undefined;
      try {
        code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
      } catch {
        // not JSON: the whole text is shown below
      }
      expect({ what, status: r.status, code: code ?? text }).toEqual({ what, status: 401, code: "unauthorized" });
    }
    // A request signed with the right secret is accepted (what a runner sends), and so is the same request through B, forwarded.
    const ok = await direct(
      signForward(secret, { method: "GET", path: `/api/v1/tasks/${task.id}/changes`, body: "", from: "runner_a", target: "runner_c", person: false }),
    );
    expect(ok.status).toBe(200);
    responses.push(await ok.text());
    for (const r of [
      await b.api("GET", `/tasks/${task.id}/changes`),
      await b.api("GET", `/tasks/${task.id}/environment`),
      await a.api("GET", "/runners"),
      await b.api("GET", "/health"),
    ]) {
      expect(r.status).toBe(200);
      responses.push(JSON.stringify(r.body));
    }
    // A forwarded prompt and a refused one are logged at debug level: still no secret.
    expect((await b.api("POST", `/sessions/${started.body.id}/prompt`, { prompt: "write b.txt y" })).status).toBe(202);
    await waitForSession(a.api, started.body.id, ["waiting_for_input"], 60_000);

    await Promise.all([a, b, c].map((r) => stopRunner(r)));
    for (const text of responses) expect(text).not.toContain(secret);
    for (const r of [a, b, c]) {
      expect(r.output()).not.toContain(secret);
      const files = allText(r.home);
      expect(files.length).toBeGreaterThan(0);
      expect(files).toContain("request"); // debug request lines were written
      expect(files, `a file under ${r.id}'s home holds the secret`).not.toContain(secret);
    }
    expect(homes.c).toBe(c.home);
  });
});
