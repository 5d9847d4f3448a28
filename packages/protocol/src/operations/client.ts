import { OPERATION_ROUTES } from "./routes.js";
import type { BodyOf, OperationId, ParamsOf, QueryOf, ResponseOf } from "./types.js";

/** One HTTP request of an operation, ready for a transport: `path` is under `/api/v1`, parameters filled in and encoded. */
export interface OperationRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  /** Query parameters whose value was given, as text. */
  query: Record<string, string>;
  /** The JSON body, or undefined (a transport still sends `{}` on a state-changing request). */
  body: unknown;
}

/** Sends one request and resolves to the parsed JSON answer (undefined for no body); rejects on an error answer. */
export type Fetcher = (req: OperationRequest) => Promise<unknown>;

type Part<K extends string, T> = [T] extends [never] ? unknown : Partial<T> extends T ? { [P in K]?: T } : { [P in K]: T };
type ParamsPart<I extends OperationId> = keyof ParamsOf<I> extends never ? unknown : { params: ParamsOf<I> };

/** What a call of operation `I` takes: its path parameters, query and body, each only where the operation has one. */
export type OperationInput<I extends OperationId> = ParamsPart<I> & Part<"query", QueryOf<I>> & Part<"body", BodyOf<I>>;

/** The arguments after the operationId: the input, optional when the operation needs none. */
export type OperationArgs<I extends OperationId> =
  Partial<OperationInput<I>> extends OperationInput<I> ? [input?: OperationInput<I>] : [input: OperationInput<I>];

/** The request of one call: path parameters encoded into the path, undefined query values left out. */
export function operationRequest<I extends OperationId>(id: I, ...[input]: OperationArgs<I>): OperationRequest {
  const op = OPERATION_ROUTES[id];
  const given = (input ?? {}) as { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown };
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = given.params?.[name];
    if (value === undefined) throw new Error(`${id}: path parameter ${name} is missing`);
    return encodeURIComponent(value);
  });
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(given.query ?? {})) if (v !== undefined) query[k] = String(v);
  return { method: op.method.toUpperCase() as OperationRequest["method"], path, query, body: given.body };
}

/**
 * Calls one operation of the table through `fetch` (the CLI's node:http client, the page's
 * `fetch`), typed from the table: the input an operation takes and the answer its response
 * schema promises (not re-validated here: the server built it from the same schema).
 */
export async function callOperation<I extends OperationId>(fetch: Fetcher, id: I, ...input: OperationArgs<I>): Promise<ResponseOf<I>> {
  return (await fetch(operationRequest(id, ...input))) as ResponseOf<I>;
}
export type { BodyOf, OperationId, ParamsOf, QueryOf, ResponseOf } from "./types.js";
