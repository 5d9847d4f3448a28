import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/api/openapi.js";
import { DATABASES } from "../fixture/db.js";
import { makeRepo } from "../fixture/git.js";
import { waitFor, waitForSession, serverPerTest } from "../fixture/server.js";
import { rawRequest } from "./helpers.js";

/** Strings no id or ordinary text field may hold: NUL, lone high and low surrogates. */
const BAD = ["a\u0000b", "\u0000", "x\uD800y", "\uDFFF"];
/** The same in a URL (a lone surrogate has no UTF-8 form: its CESU bytes, and bytes that are not UTF-8 at all). */
const BAD_URL = ["a%00b", "%00", "%ED%A0%80", "%FF%FE", "x%C0%80"];

/** Every string leaf of `v` as [path, setter-producing copy]. */
function stringLeaves(v: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof v === "string") return [path];
  if (Array.isArray(v)) return v.flatMap((x, i) => stringLeaves(x, [...path, i]));
  if (v && typeof v === "object") return Object.entries(v).flatMap(([k, x]) => stringLeaves(x, [...path, k]));
  return [];
}

function withLeaf(v: unknown, path: (string | number)[], value: string): unknown {
  const copy = structuredClone(v) as Record<string | number, unknown>;
  let cur = copy;
  for (const p of path.slice(0, -1)) cur = cur[p] as Record<string | number, unknown>;
  cur[path[path.length - 1]!] = value;
  return copy;
}

describe.each(DATABASES)("SEC-8 NUL and invalid code points on every route (%s)", (kind) => {
  const perTest = serverPerTest(kind);

  it("SEC-8 every id, query value and body text field with NUL or a lone surrogate → 400 invalid_request, never ≥ 500; nothing is written", async () => {
    const srv = await perTest.start();
    const repo = await makeRepo({ name: "nulrepo" });
    const other = await makeRepo({ name: "other" });
    perTest.track(repo, other);
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    const t = await srv.api("POST", "/tasks", { title: "Base", repositories: [{ repositoryId: r.body.id }] });
    const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, {});
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const ids: Record<string, string> = { id: t.body.id, requestId: "req_1" };
    const idFor = (path: string) => (path.startsWith("/repositories") ? r.body.id : path.startsWith("/sessions") ? s.body.id : t.body.id);

    // Valid bodies per operation; every string leaf is then replaced by each bad string.
    const bodies: Record<string, unknown[]> = {
      "post /repositories": [
        { path: other.path, name: "other", defaultBranch: "main", branchTemplate: "grove/{title}", copyFiles: [".env"], setupScript: "true" },
        { url: "https://github.com/o/r.git", provider: "github", credential: { token: "t", username: "u" } },
      ],
      "patch /repositories/{id}": [{ defaultBranch: "main", branchTemplate: "g/{title}", copyFiles: [".env"], setupScript: "true" }],
      "post /tasks": [{ title: "T", description: "d", repositories: [{ repositoryId: r.body.id, baseBranch: "main", checkoutBranch: "feature" }] }],
      "patch /tasks/{id}": [{ title: "T", description: "d", state: "done" }],
      "post /tasks/{id}/sessions": [{ agent: "scripted" }],
      "post /sessions/{id}/permissions/{requestId}": [{ optionId: "allow" }],
    };
    const queries: Record<string, Record<string, string>> = {
      "get /tasks": { archived: "true" },
      "get /cleanup-jobs": { taskId: t.body.id },
      "get /tasks/{id}/changes/diff": { repositoryId: r.body.id, path: "README.md", worktreeId: "w" },
      "delete /tasks/{id}": { discardChanges: "true" },
    };
    const failures: string[] = [];
    let count = 0;
    const check = async (label: string, res: { status: number; body: any }, expect400: boolean) => {
      count++;
      if (res.status >= 500 || (expect400 && (res.status !== 400 || res.body?.error?.code !== "invalid_request")))
        failures.push(`${label} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 120)}`);
    };
    const json = { "content-type": "application/json" };
    for (const op of OPERATIONS) {
      if (op.path === "/events") continue; // a WebSocket; its path has no parameter and takes no query
      const key = `${op.method} ${op.path}`;
      const method = op.method.toUpperCase();
      const hasBody = method !== "GET";
      const fill = (bad?: string) => op.path.replace(/\{([A-Za-z]+)\}/g, (_, p: string) => (bad !== undefined ? bad : p === "id" ? idFor(op.path) : ids[p]!));
      // Path parameters.
      if (op.path.includes("{")) {
        for (const bad of BAD_URL)
          await check(`${key} param ${bad}`, await rawRequest(srv.url, method, `/api/v1${fill(bad)}`, json, hasBody ? "{}" : undefined), true);
      }
      // Query values, one at a time, the others valid. Bytes that are not UTF-8 stay literal
      // `%XX` text in a query value (harmless); NUL must be refused.
      for (const [q, good] of Object.entries(queries[key] ?? {})) {
        for (const bad of BAD_URL) {
          const must400 = bad.includes("%00");
          const qs = new URLSearchParams({ ...queries[key], [q]: good });
          const query = qs.toString().replace(`${q}=${encodeURIComponent(good)}`, `${q}=${bad}`);
          await check(`${key} ?${q}=${bad}`, await rawRequest(srv.url, method, `/api/v1${fill()}?${query}`, json, hasBody ? "{}" : undefined), must400);
        }
      }
      // Body text fields and keys.
      for (const body of bodies[key] ?? []) {
        for (const leaf of stringLeaves(body)) {
          for (const bad of BAD) {
            await check(`${key} body.${leaf.join(".")}=${JSON.stringify(bad)}`, await srv.api(method, fill(), withLeaf(body, leaf, bad)), true);
          }
        }
        await check(`${key} NUL key`, await srv.api(method, fill(), { ...(body as object), "k\u0000": 1 }), true);
      }
    }
    expect(failures).toEqual([]);
    expect(count).toBeGreaterThan(150);
    // Nothing was written by any refused request.
    expect((await srv.api("GET", "/repositories")).body).toHaveLength(1);
    expect((await srv.api("GET", "/tasks")).body.map((x: { title: string }) => x.title)).toEqual(["Base"]);
    expect((await srv.api("GET", `/tasks/${t.body.id}/sessions`)).body).toHaveLength(1);
  });

  it("SEC-8 a prompt containing NUL is accepted and its transcript kept: the prompt and the agent's NUL-bearing answer read back exactly", async () => {
    const srv = await perTest.start();
    const repo = await makeRepo();
    perTest.track(repo);
    const r = await srv.api("POST", "/repositories", { path: repo.path });
    const t = await srv.api("POST", "/tasks", { title: "Nul", repositories: [{ repositoryId: r.body.id }] });
    const prompt = "say before\u0000after \uE000 0\uE0000";
    const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, { prompt });
    expect(s.status).toBe(201);
    await waitForSession(srv.api, s.body.id, ["waiting_for_input"]);
    const second = "say again\u0000\u0000";
    expect((await srv.api("POST", `/sessions/${s.body.id}/prompt`, { prompt: second })).status).toBe(202);
    const msgs = await waitFor(async () => {
      const m = (await srv.api("GET", `/sessions/${s.body.id}/messages`)).body as { role: string; text: string }[];
      return m.filter((x) => x.role === "agent").length >= 2 ? m : undefined;
    }, "both answers");
    const user = msgs.filter((m) => m.role === "user").map((m) => m.text);
    const agent = msgs.filter((m) => m.role === "agent").map((m) => m.text);
    expect(user).toEqual([prompt, second]);
    expect(agent.join("|")).toContain("before\u0000after \uE000 0\uE0000");
    expect(agent.join("|")).toContain("again\u0000\u0000");
  });
});
