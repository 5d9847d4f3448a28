import { describe, expect, it } from "vitest";
import { callOperation, operationRequest, type OperationRequest } from "./client.js";
import { OPERATION_ROUTES } from "./routes.js";
import { API_OPERATIONS } from "./table.js";

describe("API-DOC-6 the table's typed client", () => {
  it("API-DOC-6 fills and encodes path parameters, leaves out undefined query values, sends the body as given", () => {
    expect(operationRequest("answerPermissionRequest", { params: { id: "ses 1/x", requestId: "r?1" }, body: { optionId: null } })).toEqual({
      method: "POST",
      path: "/sessions/ses%201%2Fx/permissions/r%3F1",
      query: {},
      body: { optionId: null },
    });
    expect(operationRequest("listTasks", { query: { archived: true, limit: 5, q: undefined, state: "todo,done" } })).toEqual({
      method: "GET",
      path: "/tasks",
      query: { archived: "true", limit: "5", state: "todo,done" },
      body: undefined,
    });
    expect(operationRequest("getHealth")).toEqual({ method: "GET", path: "/health", query: {}, body: undefined });
  });

  it("API-DOC-6 a missing path parameter is refused before anything is sent", () => {
    expect(() => operationRequest("getTask", { params: {} as { id: string } })).toThrow("getTask: path parameter id is missing");
  });

  it("API-DOC-6 callOperation hands the request to the transport and resolves with its answer", async () => {
    const sent: OperationRequest[] = [];
    const answer = await callOperation(
      async (r) => {
        sent.push(r);
        return { status: "ok" };
      },
      "deleteTask",
      { params: { id: "task_1" }, query: { discardChanges: true } },
    );
    expect(answer).toEqual({ status: "ok" });
    expect(sent).toEqual([{ method: "DELETE", path: "/tasks/task_1", query: { discardChanges: "true" }, body: undefined }]);
  });

  it("API-DOC-6 the client's routes are the table's methods and paths, operation for operation", () => {
    const fromTable = Object.fromEntries(Object.entries(API_OPERATIONS).map(([id, op]) => [id, { method: op.method, path: op.path }]));
    expect(OPERATION_ROUTES).toEqual(fromTable);
  });
});
