import { AppError } from "./errors.js";

/**
 * Keyset cursors (ADR 2026-11-30-list-paging-keyset): a cursor names the last row a page
 * returned by its immutable sort key, never by an offset, so rows created, archived or deleted
 * meanwhile can neither shift a row into a page twice nor push one out unseen.
 * Encoded as base64url JSON: opaque to clients, checked on the way back in.
 */
export interface KeyCursor {
  /** The row's `createdAt` (ISO text, the primary sort key). */
  at: string;
  /** The row's id (tie-breaker: many rows share a millisecond). */
  id: string;
}

export function encodeCursor(c: KeyCursor): string {
  return Buffer.from(JSON.stringify([c.at, c.id]), "utf8").toString("base64url");
}

/** A cursor from a request; anything this server did not produce is `400 invalid_request`. */
export function decodeCursor(raw: string, field = "cursor"): KeyCursor {
  const bad = () => new AppError("invalid_request", `${field}: not a cursor this server issued`, { field });
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    throw bad();
  }
  if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== "string" || typeof v[1] !== "string" || v[0] === "" || v[1] === "") throw bad();
  return { at: v[0], id: v[1] };
}

/** Message cursors: the database sequence of the oldest message a page returned. */
export function encodeSeqCursor(seq: number): string {
  return Buffer.from(`m${seq}`, "utf8").toString("base64url");
}

export function decodeSeqCursor(raw: string, field = "before"): number {
  const s = Buffer.from(raw, "base64url").toString("utf8");
  const n = /^m(\d{1,15})$/.exec(s)?.[1];
  if (n === undefined) throw new AppError("invalid_request", `${field}: not a cursor this server issued`, { field });
  return Number(n);
}
