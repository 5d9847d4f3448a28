import type { z } from "zod";
import { AppError } from "../domain/errors.js";

/**
 * Parses a request part with its protocol schema; a failure is `400 invalid_request` whose
 * details name the first offending field (SEC-3).
 */
export function parse<S extends z.ZodType>(schema: S, value: unknown, where: "body" | "query" | "params" = "body"): z.infer<S> {
  const r = schema.safeParse(value ?? (where === "body" ? undefined : {}));
  if (r.success) return r.data;
  const first = r.error.issues[0];
  const field = first && first.path.length > 0 ? first.path.join(".") : where;
  throw new AppError("invalid_request", `${field}: ${first?.message ?? "invalid"}`, {
    field,
    issues: r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
  });
}
