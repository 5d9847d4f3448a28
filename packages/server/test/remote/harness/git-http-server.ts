import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/**
 * A smart-HTTP git server on 127.0.0.1 for tests: git's own `http-backend` (CGI) behind a
 * node:http server. It emulates one provider's URL layout and authentication, counts requests
 * per repository with and without credentials, and can be told to answer 401/500 or hang.
 */
export type ProviderKind = "github" | "gitlab" | "azure-devops" | "plugin";

/** One request as the server saw it. */
export interface SeenRequest {
  repo: string;
  service: string;
  authed: boolean;
  status: number;
  /** The Authorization header's basic user, if any (never the password). */
  user: string | null;
}

/** `slow`: every request waits `slowMs` before it is served (to observe git processes mid-fetch). */
export type Mode = "ok" | "401" | "500" | "hang" | "slow";

const LAYOUT: Record<ProviderKind, RegExp> = {
  github: /^\/[^/]+\/[^/]+$/,
  gitlab: /^(\/[^/]+){2,}$/,
  "azure-devops": /^\/[^/]+\/[^/]+\/_git\/[^/]+$/,
  // The test plugin ("forge"): /r/<owner>/<name>.
  plugin: /^\/r\/[^/]+\/[^/]+$/,
};

export interface GitHttpServer {
  url: string;
  port: number;
  requests: SeenRequest[];
  /** Requests to `repo` (a key like `/acme/widget`). */
  count(repo: string, filter?: { authed?: boolean; status?: number }): number;
  /**
   * Fetch (or clone) exchanges served, by credential: `info/refs` answered 200. A 401 challenge
   * that git answers with the credential is not an exchange; it is counted in `requests`.
   */
  fetches(repo: string, authed: boolean): number;
  setMode(mode: Mode): void;
  /** A mode for one repository only (wins over the global mode); `ok` clears it. */
  setRepoMode(repo: string, mode: Mode): void;
  close(): Promise<void>;
}

function basicAuth(req: IncomingMessage): { user: string; password: string } | null {
  const h = req.headers.authorization;
  if (!h?.startsWith("Basic ")) return null;
  const text = Buffer.from(h.slice(6), "base64").toString("utf8");
  const i = text.indexOf(":");
  return i < 0 ? null : { user: text.slice(0, i), password: text.slice(i + 1) };
}

/** Whether the credential has this provider's form (GitHub: token as password; GitLab: user oauth2; Azure DevOps: PAT basic). */
function accepted(kind: ProviderKind, cred: { user: string; password: string } | null, token: string): boolean {
  if (!cred || cred.password !== token) return false;
  if (kind === "gitlab") return cred.user === "oauth2";
  return cred.user.length > 0;
}

/**
 * Serves bare repositories under `root`: a request for `/<key>/info/refs` maps to
 * `root/<key without .git>.git`. `token` set → every request needs it in the provider's form.
 */
export async function startGitHttpServer(opts: { root: string; kind: ProviderKind; token?: string; slowMs?: number }): Promise<GitHttpServer> {
  const requests: SeenRequest[] = [];
  let globalMode: Mode = "ok";
  const repoModes = new Map<string, Mode>();
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    const m = /^(.*?)(\/info\/refs|\/git-upload-pack|\/git-receive-pack|\/HEAD|\/objects\/.*)$/.exec(u.pathname);
    const key = (m?.[1] ?? u.pathname).replace(/\.git$/, "");
    // "info/refs" opens every smart-HTTP exchange (one per fetch or clone); the POSTs follow.
    const service = (m?.[2] ?? "").replace(/^\//, "");
    const cred = basicAuth(req);
    const record = (status: number) => requests.push({ repo: key, service, authed: cred !== null, status, user: cred?.user ?? null });
    if (!m || !LAYOUT[opts.kind].test(key) || !existsSync(join(opts.root, `${key}.git`))) {
      record(404);
      res.writeHead(404).end("not found");
      return;
    }
    const mode = repoModes.get(key) ?? globalMode;
    if (mode === "hang") {
      record(0);
      hanging.add(res);
      return;
    }
    if (mode === "500") {
      record(500);
      res.writeHead(500).end("boom");
      return;
    }
    if (mode === "401" || (opts.token !== undefined && !accepted(opts.kind, cred, opts.token))) {
      record(401);
      res.writeHead(401, { "www-authenticate": 'Basic realm="test"' }).end("auth required");
      return;
    }
    record(200);
    const serve = () => cgi(req, res, opts.root, `${key}.git${m[2]}`, u.search.replace(/^\?/, ""));
    if (mode === "slow") setTimeout(serve, opts.slowMs ?? 600);
    else serve();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    count: (repo, f = {}) =>
      requests.filter((r) => r.repo === repo && (f.authed === undefined || r.authed === f.authed) && (f.status === undefined || r.status === f.status)).length,
    fetches: (repo, authed) => requests.filter((r) => r.repo === repo && r.service === "info/refs" && r.status === 200 && r.authed === authed).length,
    setMode: (m2) => (globalMode = m2),
    setRepoMode: (repo, m2) => (m2 === "ok" ? repoModes.delete(repo) : repoModes.set(repo, m2)),
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Runs `git http-backend` for one request (CGI/1.1 environment), streaming both bodies. */
function cgi(req: IncomingMessage, res: ServerResponse, root: string, pathInfo: string, query: string): void {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    // Serve PR refs of unadvertised commits (fork PRs are reachable only from refs/pull/*).
    GIT_CONFIG_COUNT: "2",
    GIT_CONFIG_KEY_0: "uploadpack.allowAnySHA1InWant",
    GIT_CONFIG_VALUE_0: "true",
    // Pushes (pull requests) are accepted like a host accepts an authenticated push.
    GIT_CONFIG_KEY_1: "http.receivepack",
    GIT_CONFIG_VALUE_1: "true",
    REQUEST_METHOD: req.method ?? "GET",
    PATH_INFO: `/${pathInfo.replace(/^\/+/, "")}`,
    QUERY_STRING: query,
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    REMOTE_ADDR: "127.0.0.1",
    ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"]) } : {}),
    ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
  };
  const child = spawn("git", ["http-backend"], { env, stdio: ["pipe", "pipe", "ignore"] });
  req.pipe(child.stdin);
  child.stdin.on("error", () => undefined);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on("data", (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
      const i = line.indexOf(":");
      if (i < 0) continue;
      const k = line.slice(0, i).trim();
      const v = line.slice(i + 1).trim();
      if (k.toLowerCase() === "status") status = Number.parseInt(v, 10);
      else headers[k] = v;
    }
    res.writeHead(status, headers);
    res.write(head.subarray(end + 4));
  });
  child.on("close", () => res.end());
}
