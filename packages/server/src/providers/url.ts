import { AppError } from "../domain/errors.js";
import type { RemoteUrl } from "./provider.js";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i;
// scp-like: user@host:path (no scheme, a colon before the first slash).
const SCP = /^(?:([A-Za-z0-9._-]+)@)?([A-Za-z0-9.-]+):(?!\/\/)(.+)$/;
const SAFE_SEGMENT = /^[A-Za-z0-9._~%+-]+$/;

function invalid(message: string): AppError {
  return new AppError("invalid_request", message, { field: "url" });
}

/**
 * CONTRACT "Remote repository URLs": `https://`, `ssh://` or scp-like (`git@host:owner/name.git`);
 * `http://` only for loopback hosts. Refuses anything git could read as an option (leading `-`),
 * embedded passwords (a credential in a URL ends up on disk in `.git/config`), `..` segments,
 * query strings and fragments. Never echoes a password back.
 */
export function parseRemoteUrl(raw: string): RemoteUrl {
  const text = raw.trim();
  if (text !== raw || text.length === 0) throw invalid("url must not be empty or padded with spaces");
  if (text.startsWith("-")) throw invalid("url must not start with '-'");
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\s\u0000-\u001f\u007f\\]/.test(text)) throw invalid("url contains control characters, spaces or backslashes");
  let out: RemoteUrl;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let u: URL;
    try {
      u = new URL(text);
    } catch {
      throw invalid("url is not a valid URL");
    }
    const scheme = u.protocol.replace(/:$/, "").toLowerCase();
    if (u.password) throw invalid("url must not contain a password or token; pass it as credential.token");
    if (u.search || u.hash) throw invalid("url must not contain a query or fragment");
    const host = u.hostname.toLowerCase().replace(/^\[|\]$/g, "");
    if (scheme === "http") {
      if (!LOOPBACK.test(host)) throw invalid("http:// is allowed only for loopback hosts; use https://");
    } else if (scheme !== "https" && scheme !== "ssh") {
      throw invalid(`url scheme ${scheme}:// is not supported (https, ssh, or scp-like)`);
    }
    if (scheme !== "ssh" && u.username) throw invalid("url must not contain a user name; pass credential.username");
    out = {
      scheme: scheme as RemoteUrl["scheme"],
      host,
      port: u.port ? Number(u.port) : null,
      path: decodeURIComponent(u.pathname).replace(/^\/+/, ""),
      user: u.username ? decodeURIComponent(u.username) : null,
      original: text,
    };
  } else {
    const m = SCP.exec(text);
    if (!m) throw invalid("url must be https://, ssh://, or scp-like user@host:owner/name.git");
    out = { scheme: "ssh", host: m[2]!.toLowerCase(), port: null, path: m[3]!.replace(/^\/+/, ""), user: m[1] ?? null, original: text };
  }
  if (!out.host || out.host.startsWith("-")) throw invalid("url has no valid host");
  const segments = out.path.split("/").filter((s) => s.length > 0);
  if (segments.length === 0) throw invalid("url has no repository path");
  for (const s of segments) {
    if (s === "." || s === ".." || !SAFE_SEGMENT.test(s) || s.startsWith("-")) throw invalid(`url path segment ${JSON.stringify(s)} is not allowed`);
  }
  return out;
}

/** Host plus port as one directory name (`127.0.0.1_8080`), for the clone layout. */
export function hostDir(url: RemoteUrl): string {
  return url.port === null ? url.host : `${url.host}_${url.port}`;
}
