import { lookup } from "node:dns/promises";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, isIP, type Server, type Socket } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { allowed, hostPort, type AllowEntry } from "../domain/allow-list.js";

/**
 * SBX-2: the only way out of a sandbox. Grove runs one proxy per confined agent on a Unix socket
 * that is bound into that agent's sandbox (its network namespace has nothing but loopback). It
 * speaks HTTP `CONNECT host:port` (TLS and anything else) and plain HTTP with an absolute URI,
 * and lets a connection through only when the host the agent named is on the profile's
 * allow-list and the address it resolves to is not Grove's own port on this machine. Each
 * refusal is reported once through `onBlocked` (the transcript's `blocked: host:port` note).
 *
 * The address is resolved here and the connection goes to that address, so a name that
 * resolves to loopback cannot reach Grove's port; a plain-HTTP request is sent with
 * `Connection: close`, so a kept-alive connection cannot carry a second request to another host.
 */
export interface EgressProxyOptions {
  allow: readonly AllowEntry[];
  /** Grove's own listening ports on this host: never reachable, whatever the list says. */
  forbiddenPorts(): readonly number[];
  onBlocked(hostPort: string): void;
  /** Bound on the request head (bytes). */
  maxHeadBytes?: number;
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

interface Target {
  host: string;
  port: number;
  /** For plain HTTP: the head to send upstream (origin-form, `Connection: close`). */
  head?: string;
}

function parseHead(head: string): Target | { error: string } {
  const [requestLine = "", ...headerLines] = head.split("\r\n");
  const m = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(requestLine);
  if (!m) return { error: "not an HTTP/1 request" };
  const [, method, target] = m as unknown as [string, string, string];
  if (method === "CONNECT") {
    const t = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(target);
    if (!t) return { error: "CONNECT needs host:port" };
    return { host: t[1]!.replace(/^\[|\]$/g, ""), port: Number(t[2]) };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { error: "a proxy request needs an absolute http:// URI" };
  }
  if (url.protocol !== "http:") return { error: `${url.protocol} is only reachable through CONNECT` };
  const dropped = new Set(["proxy-connection", "proxy-authorization", "connection", "keep-alive"]);
  const headers = headerLines.filter((l) => l !== "" && !dropped.has(l.slice(0, l.indexOf(":")).trim().toLowerCase()));
  const path = `${url.pathname}${url.search}`;
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port: Number(url.port || 80), head: [`${method} ${path} HTTP/1.1`, ...headers, "Connection: close", "", ""].join("\r\n") };
}

function refuse(client: Socket, status: string, text: string): void {
  client.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
}

export class EgressProxy {
  private constructor(
    private readonly server: Server,
    private readonly sockets: Set<Socket>,
    private readonly dir: string,
    readonly socketPath: string,
  ) {}

  /** Listens on a fresh socket in a private (0700) directory of the system temp dir. */
  static async start(opts: EgressProxyOptions): Promise<EgressProxy> {
    // A short path: Unix socket paths are limited to ~107 bytes, GROVE_HOME may be long.
    const dir = mkdtempSync(join(tmpdir(), "grove-egress-"));
    const socketPath = join(dir, "s");
    const sockets = new Set<Socket>();
    const server = createServer((client) => {
      sockets.add(client);
      client.once("close", () => sockets.delete(client));
      handle(client, opts, sockets);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => resolve());
    });
    return new EgressProxy(server, sockets, dir, socketPath);
  }

  /** Stops listening, ends every relayed connection and removes the socket. */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function handle(client: Socket, opts: EgressProxyOptions, sockets: Set<Socket>): void {
  let buf = Buffer.alloc(0);
  client.on("error", () => undefined);
  const onData = (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    const end = buf.indexOf("\r\n\r\n");
    if (end < 0) {
      if (buf.length > (opts.maxHeadBytes ?? MAX_HEAD)) refuse(client, "431 Request Header Fields Too Large", "request head too large\n");
      return;
    }
    client.off("data", onData);
    client.pause();
    const head = buf.subarray(0, end).toString("latin1");
    const rest = buf.subarray(end + 4);
    void route(client, head, rest, opts, sockets);
  };
  client.on("data", onData);
}

async function route(client: Socket, head: string, rest: Buffer, opts: EgressProxyOptions, sockets: Set<Socket>): Promise<void> {
  const t = parseHead(head);
  if ("error" in t) return refuse(client, "400 Bad Request", `${t.error}\n`);
  const name = hostPort(t.host, t.port);
  const block = () => {
    opts.onBlocked(name);
    refuse(client, "403 Forbidden", `blocked by Grove's sandbox: ${name} is not on this agent's allow-list\n`);
  };
  // The list first: a host not on it is refused without even a DNS query for it.
  if (!allowed(opts.allow, t.host, t.port)) return block();
  let address: string;
  try {
    address = isIP(t.host) ? t.host : (await lookup(t.host)).address;
  } catch {
    return refuse(client, "502 Bad Gateway", `cannot resolve ${t.host}\n`);
  }
  if (isLocal(address) && opts.forbiddenPorts().includes(t.port)) return block();
  const upstream = createConnection({ host: address, port: t.port });
  sockets.add(upstream);
  upstream.once("close", () => sockets.delete(upstream));
  let connected = false;
  upstream.once("error", (e) => {
    if (!connected && !client.destroyed) refuse(client, "502 Bad Gateway", `cannot connect to ${name}: ${e.message}\n`);
    else client.destroy();
  });
  upstream.once("connect", () => {
    connected = true;
    if (t.head === undefined) client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    else upstream.write(t.head, "latin1");
    if (rest.length > 0) upstream.write(rest);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  });
  client.once("close", () => upstream.destroy());
}
