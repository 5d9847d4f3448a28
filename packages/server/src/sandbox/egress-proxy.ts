import { lookup } from "node:dns/promises";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createConnection, isIP, type Socket } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { allowed, hostPort, type AllowEntry } from "../domain/allow-list.js";
import { privateSocketDir, SOCKET_PATH_MAX } from "../socket-dir.js";

/**
 * SBX-2: the only way out of a sandbox. Grove runs one proxy per confined agent on a Unix socket
 * that is bound into that agent's sandbox (its network namespace has nothing but loopback). It
 * speaks HTTP `CONNECT host:port` (TLS and anything else) and plain HTTP with an absolute URI,
 * and lets a connection through only when the host the agent named is on the profile's
 * allow-list and the address it resolves to is not Grove's own port on this machine. Each
 * refusal is reported once through `onBlocked` (the transcript's `blocked: host:port` note).
 *
 * The address is resolved here and the connection goes to that address, so a name that
 * resolves to loopback cannot reach Grove's port. Plain HTTP is relayed request by request
 * (Node's HTTP server parses the agent's side): a kept-alive connection may carry many requests,
 * each checked on its own and each sent upstream on a connection of its own, so no request
 * rides on a connection opened for another host.
 */
export interface EgressProxyOptions {
  allow: readonly AllowEntry[];
  /** Grove's own listening ports on this host: never reachable, whatever the list says. */
  forbiddenPorts(): readonly number[];
  onBlocked(hostPort: string): void;
  /** Bound on the request head (bytes). */
  maxHeadBytes?: number;
  /**
   * Where the proxy's private socket directory goes: the server's own `egressRunDir(home)`, which
   * it clears when it starts; the system temp dir when that path would be too long for a socket.
   */
  runDir?: string;
}

/** What a socket path adds below `runDir`: the private directory (`p-` and six random characters) and `s`. */
const BELOW_RUN_DIR = "/p-XXXXXX/s".length;

/**
 * SBX-2: the directory of a server's egress sockets, one private directory per confined process.
 * Only the server holding the home's lock (LIVE-1) creates proxies there, so whatever it finds
 * there at its start was left by a predecessor that died without closing them (kill -9).
 */
export function egressRunDir(home: string): string {
  return join(home, "run", "egress");
}

/** Removes what a dead predecessor left in `egressRunDir(home)`; called once at start-up, under the home's lock. */
export function clearEgressRunDir(home: string): void {
  rmSync(egressRunDir(home), { recursive: true, force: true });
}

/** A fresh 0700 directory for one proxy's socket: below `runDir` when the path fits, else in the system temp dir. */
function socketDir(runDir: string | undefined): string {
  if (runDir !== undefined && Buffer.byteLength(runDir) + BELOW_RUN_DIR <= SOCKET_PATH_MAX) {
    return mkdtempSync(join(privateSocketDir(runDir), "p-"));
  }
  return mkdtempSync(join(tmpdir(), "grove-egress-"));
}

const MAX_HEAD = 64 * 1024;

function localAddresses(): Set<string> {
  const out = new Set<string>(["0.0.0.0", "::", "::1"]);
  for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) out.add(i.address.toLowerCase());
  return out;
}

function isLocal(address: string): boolean {
  const a = address.toLowerCase().replace(/^::ffff:/, "");
  return a.startsWith("127.") || localAddresses().has(a);
}

// Hop-by-hop: they describe one connection, never forwarded (RFC 9110 7.6.1).
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = String(headers.connection ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const out: IncomingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (!HOP_BY_HOP.has(k) && !named.includes(k) && v !== undefined) out[k] = v;
  return out;
}

/** The outcome of the checks for `host:port`: the address to connect to, or refused. */
type Verdict = { address: string } | { blocked: string } | { error: string };

async function check(opts: EgressProxyOptions, host: string, port: number): Promise<Verdict> {
  const name = hostPort(host, port);
  // The list first: a host not on it is refused without even a DNS query for it.
  if (!allowed(opts.allow, host, port)) return { blocked: name };
  let address: string;
  try {
    address = isIP(host) ? host : (await lookup(host)).address;
  } catch {
    return { error: `cannot resolve ${host}` };
  }
  if (isLocal(address) && opts.forbiddenPorts().includes(port)) return { blocked: name };
  return { address };
}

function blockedText(name: string): string {
  return `blocked by Grove's sandbox: ${name} is not on this agent's allow-list\n`;
}

function refuseSocket(client: Socket, status: string, text: string): void {
  client.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

function refuseRequest(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { "content-type": "text/plain", "content-length": Buffer.byteLength(text) }).end(text);
}

export class EgressProxy {
  private constructor(
    private readonly server: Server,
    private readonly tunnels: Set<Socket>,
    private readonly dir: string,
    readonly socketPath: string,
  ) {}

  /** Listens on a fresh socket in a private (0700) directory (`socketDir`); a failed start leaves none behind. */
  static async start(opts: EgressProxyOptions): Promise<EgressProxy> {
    const dir = socketDir(opts.runDir);
    try {
      return await EgressProxy.listenIn(dir, opts);
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  private static async listenIn(dir: string, opts: EgressProxyOptions): Promise<EgressProxy> {
    const socketPath = join(dir, "s");
    const tunnels = new Set<Socket>();
    const track = (s: Socket) => {
      tunnels.add(s);
      s.once("close", () => tunnels.delete(s));
    };
    const server = createServer({ maxHeaderSize: opts.maxHeadBytes ?? MAX_HEAD }, (req, res) => void relay(req, res, opts));
    server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
      track(client);
      void tunnel(req, client, head, opts, track);
    });
    server.on("clientError", (_e, client: Socket) => {
      if (client.writable) refuseSocket(client, "400 Bad Request", "not an HTTP/1 proxy request\n");
      else client.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => resolve());
    });
    return new EgressProxy(server, tunnels, dir, socketPath);
  }

  /** Stops listening, ends every relayed connection and removes the socket. */
  async close(): Promise<void> {
    for (const s of this.tunnels) s.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `CONNECT host:port`: a tunnel to the checked address, bytes relayed both ways. */
async function tunnel(req: IncomingMessage, client: Socket, head: Buffer, opts: EgressProxyOptions, track: (s: Socket) => void): Promise<void> {
  client.on("error", () => undefined);
  const t = /^(\[[0-9a-fA-F:.]+\]|[^:\s/]+):(\d{1,5})$/.exec(req.url ?? "");
  if (!t) return refuseSocket(client, "400 Bad Request", "CONNECT needs host:port\n");
  const host = t[1]!.replace(/^\[|\]$/g, "");
  const port = Number(t[2]);
  const v = await check(opts, host, port);
  if ("blocked" in v) {
    opts.onBlocked(v.blocked);
    return refuseSocket(client, "403 Forbidden", blockedText(v.blocked));
  }
  if ("error" in v) return refuseSocket(client, "502 Bad Gateway", `${v.error}\n`);
  const upstream = createConnection({ host: v.address, port });
  track(upstream);
  let connected = false;
  upstream.once("error", (e) => {
    if (!connected && !client.destroyed) refuseSocket(client, "502 Bad Gateway", `cannot connect to ${hostPort(host, port)}: ${e.message}\n`);
    else client.destroy();
  });
  upstream.once("connect", () => {
    connected = true;
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  client.once("close", () => upstream.destroy());
}

/** Plain HTTP with an absolute `http://` URI: this one request, checked, on its own upstream connection. */
async function relay(req: IncomingMessage, res: ServerResponse, opts: EgressProxyOptions): Promise<void> {
  let url: URL;
  try {
    url = new URL(req.url ?? "");
  } catch {
    return refuseRequest(res, 400, "a proxy request needs an absolute http:// URI\n");
  }
  if (url.protocol !== "http:") return refuseRequest(res, 400, `${url.protocol} is only reachable through CONNECT\n`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || 80);
  const v = await check(opts, host, port);
  if ("blocked" in v) {
    opts.onBlocked(v.blocked);
    return refuseRequest(res, 403, blockedText(v.blocked));
  }
  if ("error" in v) return refuseRequest(res, 502, `${v.error}\n`);
  const upstream = request(
    { host: v.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers: endToEnd(req.headers), agent: false, setHost: false },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.statusMessage, endToEnd(up.headers));
      up.pipe(res);
      up.once("error", () => res.destroy());
    },
  );
  upstream.once("error", (e) => refuseRequest(res, 502, `cannot connect to ${hostPort(host, port)}: ${e.message}\n`));
  res.once("close", () => upstream.destroy());
  req.pipe(upstream);
}
