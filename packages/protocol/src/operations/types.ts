import type { z } from "zod";
import type { API_OPERATIONS } from "./table.js";

export type ApiOperations = typeof API_OPERATIONS;
export type OperationId = keyof ApiOperations;

/** The `{name}` segments of a path, as `{ name: string }`. */
export type PathParams<P extends string> = P extends `${string}{${infer N}}${infer Rest}` ? { [K in N]: string } & PathParams<Rest> : unknown;

/** The path parameters of an operation. */
export type ParamsOf<I extends OperationId> = PathParams<ApiOperations[I]["path"]>;
/** A query value as a client gives it: coerced numbers as numbers, `"true"|"false"` flags as booleans too. */
type QueryValue<T> = unknown extends T ? string | number | boolean | undefined : [T] extends ["true" | "false" | undefined] ? T | boolean : T;
/** What a client sends as the query (a value the server coerces may be given as a number or boolean). */
export type QueryOf<I extends OperationId> = ApiOperations[I] extends { query: infer Q extends z.ZodType }
  ? { [K in keyof z.input<Q>]: QueryValue<z.input<Q>[K]> }
  : never;
/** The query as the server's handler receives it (parsed). */
export type ParsedQueryOf<I extends OperationId> = ApiOperations[I] extends { query: infer Q extends z.ZodType } ? z.output<Q> : undefined;
/** What a client sends as the body. */
export type BodyOf<I extends OperationId> = ApiOperations[I] extends { body: infer B extends z.ZodType } ? z.input<B> : never;
/** The body as the server's handler receives it (parsed, or as sent for a `rawBody` operation). */
export type ParsedBodyOf<I extends OperationId> = ApiOperations[I] extends { rawBody: true }
  ? unknown
  : ApiOperations[I] extends { body: infer B extends z.ZodType }
    ? z.output<B>
    : undefined;
/** The answer of a successful call: nothing for a 204, the response schema's type, else unknown. */
export type ResponseOf<I extends OperationId> = ApiOperations[I] extends { status: 204 }
  ? undefined
  : ApiOperations[I] extends { response: infer R extends z.ZodType }
    ? z.output<R>
    : unknown;
