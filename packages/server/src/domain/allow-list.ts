import { isIP } from "node:net";

/**
 * SBX-2: the hosts an agent's egress proxy lets through. An entry is `host` (any port),
 * `host:port`, or `*.domain[:port]` (the domain's subdomains, not the domain itself); IPv6
 * literals in brackets (`[::1]:8080`). Names compare case-insensitively. Package registries are
 * not in any default: a profile opts in (`registry.npmjs.org:443`).
 */
export interface AllowEntry {
  host: string;
  /** Undefined = any port. */
  port: number | undefined;
  wildcard: boolean;
}

export class AllowListError extends Error {}

/** Parses one entry; throws {@link AllowListError} naming what is wrong. */
export function parseAllowEntry(text: string): AllowEntry {
  const t = text.trim().toLowerCase();
  let host: string;
  let portText: string | undefined;
  const v6 = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(t);
  if (v6) {
    host = v6[1]!;
    portText = v6[2];
  } else {
    const m = /^((?:\*\.)?[a-z0-9.-]+)(?::(\d+))?$/.exec(t);
    if (!m) throw new AllowListError(`not a host or host:port: ${JSON.stringify(text)}`);
    host = m[1]!;
    portText = m[2];
  }
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) throw new AllowListError(`not a port number in ${JSON.stringify(text)}`);
  const wildcard = host.startsWith("*.");
  return { host: wildcard ? host.slice(2) : host, port, wildcard };
}

function normalizeHost(h: string): string {
  const t = h.toLowerCase().replace(/\.$/, "");
  return t.startsWith("[") && t.endsWith("]") ? t.slice(1, -1) : t;
}

/** Whether `host:port` (as the agent asked for it) is on the list. */
export function allowed(list: readonly AllowEntry[], host: string, port: number): boolean {
  const h = normalizeHost(host);
  return list.some((e) => {
    if (e.port !== undefined && e.port !== port) return false;
    if (e.wildcard) return isIP(h) === 0 && h.endsWith(`.${e.host}`);
    return h === e.host;
  });
}

/** `host:port` as shown in a `blocked:` note (IPv6 in brackets). */
export function hostPort(host: string, port: number): string {
  const h = normalizeHost(host);
  return `${isIP(h) === 6 ? `[${h}]` : h}:${port}`;
}
