import { ERROR_CATALOG, type ErrorCode } from "@grove/protocol";

/**
 * The one error type that crosses layers. Its HTTP status comes from the protocol's error
 * catalog; throw sites name only a code, a message and details.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.details = details;
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

export function notFound(what: string, id: string): AppError {
  return new AppError("not_found", `${what} ${id} not found`, { id });
}
