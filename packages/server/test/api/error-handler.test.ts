import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { installErrorHandler } from "../../src/api/error-handler.js";

/**
 * SEC-3: an error names whose fault it is. A body the client sent that is not JSON is
 * `400 invalid_json`; a SyntaxError the server hits on its own (corrupt stored JSON) is
 * `500 internal_error`, never blamed on the client.
 */
describe("error handler", () => {
  it("SEC-3 malformed request JSON is 400 invalid_json; a server-side JSON.parse failure is 500 internal_error", async () => {
    const app = Fastify({ logger: false });
    installErrorHandler(app);
    app.post("/echo", async (req) => req.body);
    app.get("/stored", async () => JSON.parse("{corrupt") as unknown);
    await app.ready();
    try {
      const bad = await app.inject({ method: "POST", url: "/echo", headers: { "content-type": "application/json" }, payload: "{nope" });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe("invalid_json");
      const stored = await app.inject({ method: "GET", url: "/stored" });
      expect(stored.statusCode).toBe(500);
      expect(stored.json().error).toEqual({ code: "internal_error", message: "internal error" });
    } finally {
      await app.close();
    }
  });
});
