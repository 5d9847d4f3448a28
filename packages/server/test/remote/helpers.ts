import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { tempDir } from "../fixture/git.js";
import { startTestServer, waitForSession, type DbKind, type TestServer } from "../fixture/server.js";
import { startGitHttpServer, type GitHttpServer, type ProviderKind, type SeenRequest } from "./harness/git-http-server.js";
import { makeRemoteRepo } from "./harness/repos.js";

/** A unique token per test run: the leak test greps for it everywhere. */
export function uniqueToken(): string {
  return `tok_${randomBytes(12).toString("hex")}`;
}

/** A provider-emulating git server with repositories, plus a Grove server. */
export interface RemoteWorld {
  root: string;
  http: GitHttpServer;
  srv: TestServer;
  token: string;
  close(): Promise<void>;
}

export async function remoteWorld(
  kind: DbKind,
  provider: ProviderKind,
  opts: { env?: Record<string, string>; token?: string | null } = {},
): Promise<RemoteWorld> {
  const root = await tempDir("grove-remote-");
  const token = opts.token === null ? "" : (opts.token ?? uniqueToken());
  const http = await startGitHttpServer({ root, kind: provider, ...(opts.token === null ? {} : { token }) });
  // A push or fetch to the loopback git server takes well under a second on a quiet machine, but
  // several seconds on a loaded 2-core CI machine: the timeout is generous here, and the tests of
  // the timeout itself (RR-7, refresh-failures) set their own short one.
  const srv = await startTestServer(kind, undefined, { GROVE_REFRESH_TIMEOUT_MS: "30000", ...opts.env });
  return {
    root,
    http,
    srv,
    token,
    async close() {
      await srv.close();
      await http.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

export { makeRemoteRepo };

/**
 * RR-5: fetch exchanges made WITHOUT the server's credential. The test server requires the token,
 * so every authenticated exchange opens with exactly one unauthenticated `info/refs` challenge
 * (401) that git answers with the credential; any unauthenticated `info/refs` beyond those is a
 * fetch that never presented a credential (a second, unauthenticated fetch).
 */
export function unauthenticatedExchanges(requests: readonly SeenRequest[]): number {
  const infoRefs = requests.filter((r) => r.service === "info/refs");
  return infoRefs.filter((r) => !r.authed).length - infoRefs.filter((r) => r.authed).length;
}

/** Registers a remote repository; throws on anything but 201. */
export async function addRemote(srv: TestServer, body: Record<string, unknown>): Promise<any> {
  const r = await srv.api("POST", "/repositories", body);
  if (r.status !== 201) throw new Error(`POST /repositories: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Creates a task on the repositories and starts its first session with a short prompt; waits for it to settle. */
export async function launch(
  srv: TestServer,
  repos: { repositoryId: string; prNumber?: number }[],
  title = "Remote task",
): Promise<{ task: any; session: any }> {
  const t = await srv.api("POST", "/tasks", { title, repositories: repos });
  if (t.status !== 201) throw new Error(`POST /tasks: ${t.status} ${JSON.stringify(t.body)}`);
  const s = await srv.api("POST", `/tasks/${t.body.id}/sessions`, { prompt: "say hi" });
  if (s.status !== 201) throw new Error(`POST sessions: ${s.status} ${JSON.stringify(s.body)}`);
  const session = await waitForSession(srv.api, s.body.id, ["waiting_for_input", "failed"]);
  return { task: t.body, session };
}
