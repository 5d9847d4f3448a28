import { z } from "zod";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_OPERATIONS, type Operation, type OperationId } from "@grove/protocol/operations";
import { openApiDocument } from "../../src/api/openapi-document.js";
import type { DB } from "../../src/store/schema.js";
import { DATABASES } from "../fixture/db.js";
import { makeRepo, type TestRepo } from "../fixture/git.js";
import { startTestServer, type TestServer } from "../fixture/server.js";

const TABLE = Object.entries(API_OPERATIONS) as [OperationId, Operation][];
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

// The one operation table (docs/decisions/2026-12-02-operation-table.md): routes, forwarding and
// the OpenAPI document are all derived from it, and these checks fail when one of them is not.
describe("UX-1 ST-4 the operation table is the API", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer("sqlite");
  });
  afterAll(() => srv?.close());

  it("UX-1 API-DOC-4 every route registered under /api/v1 serves an operation of the table at its method and path, and every operation is registered", () => {
    const registered = srv.server.routes.map((r) => ({ route: key(r.method, r.path), operationId: r.operationId }));
    const declared = TABLE.map(([id, op]) => ({ route: key(op.method, op.path), operationId: id }));
    // A route added past the table has no operationId; a table entry never registered is missing.
    expect([...registered].sort((a, b) => a.route.localeCompare(b.route))).toEqual([...declared].sort((a, b) => a.route.localeCompare(b.route)));
  });

  it("UX-1 API-DOC-5 the served /api/v1/openapi.json is the document derived from the table: operationIds, query parameters, bodies, statuses", async () => {
    const version = (await srv.inject("GET", "/health")).body.version as string;
    const served = (await srv.inject("GET", "/openapi.json")).body;
    expect(served).toEqual(JSON.parse(JSON.stringify(openApiDocument(version))));
    const json = (s: z.ZodType) => z.toJSONSchema(s, { io: "input", unrepresentable: "any" });
    for (const [id, op] of TABLE) {
      const doc = served.paths[op.path]?.[op.method];
      expect({ id, operationId: doc?.operationId }).toEqual({ id, operationId: id });
      const query = (doc.parameters ?? []).filter((p: { in: string }) => p.in === "query").map((p: { name: string }) => p.name);
      expect({ id, query }).toEqual({ id, query: Object.keys(op.query?.shape ?? {}) });
      expect({ id, body: doc.requestBody?.content["application/json"].schema }).toEqual({ id, body: op.body ? json(op.body) : undefined });
      const success = Object.keys(doc.responses).filter((s) => !/^[45]/.test(s));
      expect({ id, success }).toEqual({ id, success: [op.websocket ? "101" : String(op.status ?? 200)] });
      if (op.forward) expect({ id, offline: doc.responses["409"]?.description }).toEqual({ id, offline: expect.stringContaining("`runner_offline`") });
    }
  });
});

/**
 * SBX-5: the operations a signed runner-to-runner request may reach, and that a runner sends on
 * to the task's own runner. This is security surface, so it is pinned here as well as declared in
 * the table: adding or dropping a `forward` entry is a deliberate edit of both.
 */
const FORWARDED = [
  "startSession",
  "getTaskEnvironment",
  "restoreTaskEnvironment",
  "getTaskChanges",
  "getTaskFileDiff",
  "getSessionWorkspace",
  "promptSession",
  "cancelSessionTurn",
  "resumeSession",
  "restartSession",
  "deleteSession",
  "listPermissionRequests",
  "answerPermissionRequest",
  "setSessionMode",
  "setSessionModel",
  "archiveTask",
  "deleteTask",
  "resetTaskEnvironment",
  "addReviewComment",
  "listReviewComments",
  "updateReviewComment",
  "commitTaskChanges",
  "updateTaskFromBase",
  "continueTaskUpdate",
  "abortTaskUpdate",
  "getTaskConflicts",
  "sendTaskConflicts",
  "mergeTaskIntoBase",
  "createPullRequests",
  "sendPullRequestFeedback",
  "openTaskTerminal",
  "openTaskInEditor",
];
/** Forwarded operations whose answer includes the runner's state, so an offline runner's task still gets one. */
const LOCAL_WHEN_OFFLINE = ["getTaskEnvironment"];

/** A statement on the server's own database (its store's transaction hands out the Kysely handle). */
function onDb(srv: TestServer, fn: (db: Kysely<DB>) => Promise<unknown>): Promise<unknown> {
  return srv.server.deps.store.transaction((trx) => fn(trx as Kysely<DB>));
}

describe.each(DATABASES)("ST-4 SBX-5 forwarding follows the table (%s)", { timeout: 120_000 }, (kind) => {
  let srv: TestServer;
  let repo: TestRepo;
  beforeAll(async () => {
    srv = await startTestServer(kind);
    repo = await makeRepo();
  });
  afterAll(async () => {
    await srv?.close();
    await repo?.cleanup();
  });

  it("ST-4 SBX-5 API-DOC-6 every operation marked forward reaches the forwarding hook (409 runner_offline for a task on an offline runner, localWhenOffline ones answered here); no other operation does", async () => {
    const reg = await srv.inject("POST", "/repositories", { path: repo.path });
    const task = await srv.inject("POST", "/tasks", { title: "Lives elsewhere", repositories: [{ repositoryId: reg.body.id }] });
    const session = await srv.inject("POST", `/tasks/${task.body.id}/sessions`, {});
    expect(session.status).toBe(201);
    const comment = await srv.inject("POST", `/tasks/${task.body.id}/comments`, { repositoryId: reg.body.id, path: "README.md", line: 1, body: "keep" });
    expect(comment.status).toBe(201);
    // The environment now belongs to a runner with no row: offline for every reader.
    await onDb(srv, (db) => db.updateTable("task_environments").set({ runner_id: "runner_gone" }).where("task_id", "=", task.body.id).execute());

    const ids: Record<string, string> = { tasks: task.body.id, sessions: session.body.id, comments: comment.body.id };
    const path = (op: Operation) => {
      const first = op.path.split("/")[1]!;
      return op.path.replace(/\{(\w+)\}/g, (_, p: string) => (p === "id" ? (ids[first] ?? "x_unknown") : `${p}_unknown`));
    };
    // Forwarded ones first: refused, they change nothing the others then read. Deleting the comment comes last.
    const order = [...TABLE].sort(
      ([a, x], [b, y]) => Number(!x.forward) - Number(!y.forward) || Number(a === "deleteReviewComment") - Number(b === "deleteReviewComment"),
    );
    const answers: { id: string; offline: boolean }[] = [];
    for (const [id, op] of order) {
      if (id === "subscribeEvents" || id === "getOpenApiDocument") continue; // no task behind them
      const res = await srv.inject(op.method.toUpperCase(), path(op), op.method === "get" ? undefined : {});
      answers.push({ id, offline: res.status === 409 && res.body?.error?.code === "runner_offline" });
    }
    const expected = order
      .filter(([id]) => id !== "subscribeEvents" && id !== "getOpenApiDocument")
      .map(([id, op]) => ({ id, offline: op.forward !== undefined && op.forward.localWhenOffline !== true }));
    expect(answers).toEqual(expected);
    expect(answers.filter((a) => a.offline).map((a) => a.id)).toEqual(FORWARDED.filter((id) => !LOCAL_WHEN_OFFLINE.includes(id)));
    expect(TABLE.filter(([, op]) => op.forward?.localWhenOffline).map(([id]) => id)).toEqual(LOCAL_WHEN_OFFLINE);
  });
});
