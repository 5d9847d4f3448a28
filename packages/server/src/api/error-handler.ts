import type { FastifyError, FastifyInstance } from "fastify";
import type { ErrorBody } from "@grove/protocol";
import { AppError } from "../domain/errors.js";

/** One place that turns any error into `{error:{code,message,details}}` (docs/specs/api-errors.md). */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, req, reply) => {
    const e = toAppError(err);
    if (e.status >= 500) req.log.error({ err }, "request failed");
    const body: ErrorBody = { error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } };
    void reply.status(e.status).send(body);
  });
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const fe = err as Partial<FastifyError> & Error;
  // Only a body Fastify could not parse is the client's fault (Fastify marks it 400); any other
  // SyntaxError is the server's own (corrupt stored JSON, a bad provider answer) and stays a 500.
  const bodyParse = fe instanceof SyntaxError && fe.statusCode === 400;
  if (fe.code === "FST_ERR_CTP_INVALID_JSON_BODY" || bodyParse || fe.code === "FST_ERR_CTP_EMPTY_JSON_BODY") {
    return new AppError("invalid_json", `malformed JSON body: ${fe.message}`);
  }
  if (fe.code === "FST_ERR_CTP_BODY_TOO_LARGE") return new AppError("payload_too_large", fe.message);
  if (fe.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return new AppError("invalid_request", fe.message, { field: "content-type" });
  if (typeof fe.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError("invalid_request", fe.message);
  }
  return new AppError("internal_error", "internal error");
}
