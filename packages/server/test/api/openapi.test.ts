import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ListTasksQuery } from "@grove/protocol";
import { FORWARDED_ROUTES } from "../../src/api/forward-routes.js";
import { OPERATIONS } from "../../src/api/openapi.js";
import { startTestServer, type TestServer } from "../fixture/server.js";

describe("UX-1 the OpenAPI document", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer("sqlite");
  });
  afterAll(() => srv.close());

  it("UX-1 lists exactly the registered routes", () => {
    const key = (r: { method: string; path: string }) => `${r.method.toUpperCase()} ${r.path}`;
    expect([...new Set(srv.server.routes.map(key))].sort()).toEqual(OPERATIONS.map(key).sort());
  });

  it("ST-4 SBX-5 every forwarding rule names a registered route (a typo would silently stop forwarding it)", () => {
    const registered = new Set(srv.server.routes.map((r) => `${r.method.toUpperCase()} ${r.path}`));
    const unknown = FORWARDED_ROUTES.map((k) => k.replace(/:([A-Za-z]+)/g, "{$1}")).filter((k) => !registered.has(k));
    expect(unknown).toEqual([]);
    expect(FORWARDED_ROUTES.length).toBeGreaterThan(10);
  });

  it("UX-1 is served at /api/v1/openapi.json with request schemas from the protocol", async () => {
    const doc = (await srv.api("GET", "/openapi.json")).body;
    expect(doc.openapi).toBe("3.1.0");
    const create = doc.paths["/tasks"].post;
    expect(create.requestBody.content["application/json"].schema.required).toContain("title");
    expect(Object.keys(create.responses)).toContain("201");
  });

  it("UX-1 MCP-3 GET /tasks documents every query parameter the server parses (parentId included)", async () => {
    const doc = (await srv.api("GET", "/openapi.json")).body;
    const documented = (doc.paths["/tasks"].get.parameters as { name: string; in: string }[]).filter((p) => p.in === "query").map((p) => p.name);
    expect(documented.sort()).toEqual(Object.keys(ListTasksQuery.shape).sort());
  });
});
