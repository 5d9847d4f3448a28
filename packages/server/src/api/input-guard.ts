import type { FastifyInstance } from "fastify";
import { AppError } from "../domain/errors.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** SEC-8: top-level body fields where NUL is legitimate text (prompts); see installInputGuard. */
    arbitraryText?: readonly string[];
  }
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be accepted as text, or undefined when it can. */
export function textProblem(s: string, nulAllowed: boolean): string | undefined {
  if (!nulAllowed && s.includes("\u0000")) return "contains a NUL character";
  if (LONE_SURROGATE.test(s)) return "contains an invalid code point (lone surrogate)";
  return undefined;
}

function walk(value: unknown, path: string, allow: readonly string[], depth: number): { field: string; problem: string } | undefined {
  if (depth > 64) return { field: path, problem: "is nested too deeply" };
  if (typeof value === "string") {
    const topField = path.split(/[.[]/)[1] ?? "";
    const p = textProblem(value, path.startsWith("body.") && allow.includes(topField) && !path.slice(5).includes("."));
    return p ? { field: path, problem: p } : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const r = walk(value[i], `${path}[${i}]`, allow, depth + 1);
      if (r) return r;
    }
    return undefined;
  }
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const kp = textProblem(k, false);
      if (kp) return { field: `${path} key`, problem: kp };
      const r = walk(v, `${path}.${k}`, allow, depth + 1);
      if (r) return r;
    }
  }
  return undefined;
}

/**
 * SEC-3, SEC-8 on every route and every database alike: ids, query values and body text containing
 * NUL or a lone surrogate are refused with `400 invalid_request` before any handler runs, so
 * neither PostgreSQL (whose text cannot hold NUL) nor a UTF-8 encoder (which would silently
 * replace a lone surrogate) ever sees them. Fields a route marks `arbitraryText` (prompts)
 * keep NUL; the store encodes it faithfully (store/text-codec.ts).
 */
export function installInputGuard(app: FastifyInstance): void {
  app.addHook("preValidation", async (req) => {
    const allow = req.routeOptions.config?.arbitraryText ?? [];
    const found = walk(req.params, "params", [], 0) ?? walk(req.query, "query", [], 0) ?? walk(req.body, "body", allow, 0);
    if (found) {
      const field = found.field.replace(/^(body|params|query)\.?/, "") || found.field;
      throw new AppError("invalid_request", `${field}: ${found.problem}`, { field });
    }
  });
}
