import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { WebSocket } from "ws";
import {
  API_OPERATIONS,
  type ApiOperations,
  type Operation,
  type OperationId,
  type ParamsOf,
  type ParsedBodyOf,
  type ParsedQueryOf,
  type ResponseOf,
} from "@grove/protocol/operations";
import { parse } from "./validate.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The operation of the table this route serves. */
    operationId?: OperationId;
  }
}

/** One request of an operation, its query and body already parsed with the table's schemas. */
export interface OperationCall<I extends OperationId> {
  params: ParamsOf<I>;
  query: ParsedQueryOf<I>;
  body: ParsedBodyOf<I>;
  req: FastifyRequest;
  reply: FastifyReply;
}

/** An HTTP operation's handler: answers what the response schema promises; the table sets the status. */
export type HttpHandler<I extends OperationId> = (call: OperationCall<I>) => Promise<ResponseOf<I>>;

/** A WebSocket operation: `prepare` may refuse before the upgrade (a JSON error answer), `connect` serves the socket. */
export interface WsHandler<I extends OperationId> {
  prepare?: (call: Omit<OperationCall<I>, "reply" | "body">) => Promise<void>;
  connect: (socket: WebSocket, call: Omit<OperationCall<I>, "reply" | "body">) => void;
}

export type HandlerOf<I extends OperationId> = ApiOperations[I] extends { websocket: true } ? WsHandler<I> : HttpHandler<I>;

/** A handler for every operation of the table: a missing one is a type error. */
export type Handlers = { [I in OperationId]: HandlerOf<I> };

/** The handlers of one area's operations (`typeof TASK_OPERATIONS`). */
export type HandlersOf<T> = { [I in keyof T & OperationId]: HandlerOf<I> };

/** `/tasks/{id}` → `/tasks/:id`, the router's spelling. */
export function routerPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

type AnyCall = { params: unknown; query: unknown; body: unknown; req: FastifyRequest; reply: FastifyReply };

/**
 * Registers every operation of the table on `app` (the `/api/v1` scope): query and body parsed
 * with the operation's zod schemas (`400 invalid_request` naming the field, no Ajv), the handler
 * called, and its answer sent with the operation's status (204: no body).
 */
export function registerOperations(app: FastifyInstance, handlers: Handlers): void {
  for (const [id, op] of Object.entries(API_OPERATIONS) as [OperationId, Operation][]) {
    const url = routerPath(op.path);
    const config = { operationId: id, ...(op.arbitraryText ? { arbitraryText: op.arbitraryText } : {}) };
    if (op.websocket) {
      const ws = handlers[id] as unknown as WsHandler<OperationId>;
      const calls = new WeakMap<FastifyRequest, Omit<AnyCall, "reply" | "body">>();
      app.get(
        url,
        {
          websocket: true,
          config,
          // Refused before the upgrade, so a bad request gets an ordinary JSON error answer.
          preValidation: async (req) => {
            const call = { params: req.params, query: op.query ? parse(op.query, req.query, "query") : undefined, req };
            calls.set(req, call);
            await ws.prepare?.(call as never);
          },
        },
        (socket, req) => ws.connect(socket, calls.get(req) as never),
      );
      continue;
    }
    const handler = handlers[id] as unknown as (call: AnyCall) => Promise<unknown>;
    app.route({
      method: op.method.toUpperCase() as "GET",
      url,
      config,
      handler: async (req, reply) => {
        const query = op.query ? parse(op.query, req.query, "query") : undefined;
        const body = op.rawBody ? req.body : op.body ? parse(op.body, op.bodyOptional ? (req.body ?? {}) : req.body) : undefined;
        const answer = await handler({ params: req.params, query, body, req, reply });
        if (op.status === 204) return reply.status(204).send();
        return reply.status(op.status ?? 200).send(answer);
      },
    });
  }
}
