import { AppError } from "../domain/errors.js";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/i;

/**
 * A repository's provider REST API base (`apiUrl`), with the same rules as clone URLs:
 * `https://`, or `http://` only for loopback hosts; no credentials, query or fragment. Answers the
 * URL without a trailing slash.
 */
export function parseApiUrl(raw: string): string {
  const invalid = (why: string) => new AppError("invalid_request", `apiUrl ${why}`, { field: "apiUrl" });
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw invalid("is not a valid URL");
  }
  const host = u.hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (u.protocol === "http:") {
    if (!LOOPBACK.test(host)) throw invalid("may use http:// only for loopback hosts; use https://");
  } else if (u.protocol !== "https:") {
    throw invalid("must be https:// (or http:// on loopback)");
  }
  if (u.username || u.password) throw invalid("must not contain a user name or token");
  if (u.search || u.hash) throw invalid("must not contain a query or fragment");
  return u.toString().replace(/\/+$/, "");
}
