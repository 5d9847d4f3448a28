import type { z } from "zod";
import type { ErrorCode } from "../index.js";

export type Method = "get" | "post" | "put" | "patch" | "delete";

/** How the forwarding seam finds an operation's task: its `{id}` is the task's, a session's or a review comment's. */
export type ForwardScope = "task" | "session" | "comment";

/**
 * SBX-5: an operation that acts where a task's files are or on its live agents. A request for it
 * whose task lives on another runner is sent there; the rest are answered from the shared
 * database by whichever runner receives them.
 */
export interface Forward {
  scope: ForwardScope;
  /** The first session places the environment (`startSession`). */
  place?: true;
  /** A WebSocket: piped by its handler, not proxied by the hook. */
  ws?: true;
  /** Still answered from the database when the task's runner is offline (its state is part of the answer). */
  localWhenOffline?: true;
}

/**
 * One HTTP operation under `/api/v1`, declared once: the server registers, validates, forwards
 * and documents it from this entry, and the typed client calls it from it. Path parameters are the
 * `{name}` segments of `path` (non-empty strings); `query` and `body` are the zod schemas the
 * server parses with (`400 invalid_request` naming the field) and the OpenAPI document shows.
 */
export interface Operation {
  method: Method;
  path: `/${string}`;
  summary: string;
  query?: z.ZodObject;
  /** One line per query parameter for the OpenAPI document, keyed exactly by the query schema's keys. */
  queryDocs?: Record<string, string>;
  body?: z.ZodType;
  /** A request without a body is parsed as `{}` (every field of the body is optional). */
  bodyOptional?: true;
  /** The body is documented by `body` but handed to the handler as sent (its handler tells the shapes apart). */
  rawBody?: true;
  response?: z.ZodType;
  /** The success status; 200 when absent. 204 answers no body. */
  status?: 200 | 201 | 202 | 204;
  /** The codes this operation answers besides those every operation of its kind can (see the OpenAPI builder). */
  errors?: readonly ErrorCode[];
  forward?: Forward;
  /** Body fields that may hold any text (prompts): the input guard lets control characters through there. */
  arbitraryText?: readonly string[];
  /** SBX-5: only the person may call it (CLI person token or the page's cookie), `403 person_required` otherwise. */
  personOnly?: true;
  /** A WebSocket upgrade (GET); its frames are described in the summary. */
  websocket?: true;
}

type QueryDocsOf<O> = O extends { query: infer Q extends z.ZodObject } ? { queryDocs: { [K in keyof z.input<Q>]-?: string } } : { queryDocs?: never };

/**
 * Declares one operation, keeping its literal types (path, status, schemas) for the server's
 * handler table and the client. An operation with a query must document each of its keys, and
 * nothing else: a parameter the server parses is never missing from the document.
 */
export function operation<const O extends Operation>(op: O & QueryDocsOf<O>): O {
  return op;
}
