import { z } from "zod";
import * as P from "@grove/protocol";
import { EXAMPLES } from "./openapi-examples.js";
import { OPERATIONS, type Op } from "./openapi.js";

function schema(s: z.ZodType): unknown {
  return z.toJSONSchema(s, { io: "input", unrepresentable: "any" });
}

/** A query parameter's JSON Schema, without the `$schema` line a parameter does not carry. */
function parameterSchema(s: z.ZodType): unknown {
  const { $schema: _, ...rest } = schema(s) as Record<string, unknown>;
  return rest;
}

const ERROR_REF = { $ref: "#/components/schemas/Error" };

/** `{"error": {code, message, details?}}` (docs/specs/api-errors.md), every code of the catalog. */
const ERROR_SCHEMA = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string", enum: Object.keys(P.ERROR_CATALOG) },
        message: { type: "string" },
        details: { type: "object", additionalProperties: true },
      },
    },
  },
};

const TAGS: Record<string, string> = {
  meta: "Health, agent profiles, this document and the event stream",
  repositories: "Repositories Grove creates worktrees of",
  tasks: "Tasks, their sessions, environment, changes and lifecycle",
  sessions: "Agent sessions: prompts, messages, permissions",
  maintenance: "Cleanup jobs and the read-only audit",
};

function tagOf(path: string): string {
  const first = path.split("/")[1] ?? "";
  if (first === "repositories" || first === "tasks" || first === "sessions") return first;
  if (first === "cleanup-jobs" || first === "doctor") return "maintenance";
  return "meta";
}

/** The codes an operation may answer, its own plus those every operation of its kind can: validation, unknown id, token. */
function errorCodes(op: Op): P.ErrorCode[] {
  const codes = new Set<P.ErrorCode>(op.errors ?? []);
  if (op.body || op.query || op.path.includes("{")) codes.add("invalid_request");
  if (op.path.includes("{")) codes.add("not_found");
  codes.add("unauthorized");
  return [...codes];
}

function errorResponses(op: Op): Record<string, unknown> {
  const byStatus = new Map<number, P.ErrorCode[]>();
  for (const code of errorCodes(op)) {
    const status = P.ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const first = codes[0]!;
    out[String(status)] = {
      description: codes.map((c) => `\`${c}\`: ${P.ERROR_CATALOG[c].description}`).join(" "),
      content: { "application/json": { schema: ERROR_REF, example: { error: { code: first, message: P.ERROR_CATALOG[first].description } } } },
    };
  }
  return out;
}

function parameters(op: Op): unknown[] {
  const path = [...op.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    description: m[1] === "id" ? `the ${tagOf(op.path).replace(/ies$/, "y").replace(/s$/, "")}'s id` : `the ${m[1]}`,
    schema: { type: "string" },
  }));
  const docs: Record<string, string> = op.queryDocs ?? {};
  const query = Object.entries(op.query?.shape ?? {}).map(([name, field]) => ({
    name,
    in: "query",
    required: !(field as z.ZodType).safeParse(undefined).success,
    description: docs[name],
    schema: parameterSchema(field as z.ZodType),
  }));
  return [...path, ...query];
}

function operation(op: Op): Record<string, unknown> {
  const example = EXAMPLES[op.operationId];
  const status = op.status ?? 200;
  const success = op.websocket
    ? { "101": { description: "WebSocket upgrade; then text frames (see the summary)" } }
    : {
        [String(status)]: {
          description: status === 204 ? "done, no body" : "success",
          ...(status !== 204
            ? {
                content: {
                  "application/json": {
                    schema: op.response ? schema(op.response) : { type: "object" },
                    ...(example?.response !== undefined ? { example: example.response } : {}),
                  },
                },
              }
            : {}),
        },
      };
  const params = parameters(op);
  return {
    operationId: op.operationId,
    summary: op.summary,
    tags: [tagOf(op.path)],
    // A bearer token when the server has GROVE_AUTH_TOKEN; none needed on a loopback server without one.
    security: [{ bearer: [] }, {}],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: schema(op.body), ...(example?.request !== undefined ? { example: example.request } : {}) } },
          },
        }
      : {}),
    responses: { ...success, ...errorResponses(op) },
  };
}

/** The OpenAPI 3.1 document served at `/api/v1/openapi.json` and rendered at `/api/docs`. */
export function openApiDocument(version: string): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operation(op);
  return {
    openapi: "3.1.0",
    info: {
      title: "Grove API",
      version,
      description:
        'Run AI coding agents on many tasks at once, each in its own git worktree. Errors are `{"error": {code, message, details}}` with the codes of docs/specs/api-errors.md. State-changing requests carry `Content-Type: application/json`, body or not.',
    },
    servers: [{ url: "/api/v1", description: "this Grove server" }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "GROVE_AUTH_TOKEN; optional when the server has none (loopback only)" } },
      schemas: { Error: ERROR_SCHEMA },
    },
    paths,
  };
}
