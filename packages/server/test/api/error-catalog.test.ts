import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CATALOG } from "@grove/protocol";

describe("UX-1 the error catalog and its documentation agree", () => {
  it("every code is documented with its status, and nothing undocumented is listed", () => {
    const doc = readFileSync(resolve(import.meta.dirname, "../../../../docs/specs/api-errors.md"), "utf8");
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(Object.entries(ERROR_CATALOG).map(([c, v]) => [c, v.status])));
  });

  it("codes are snake_case and statuses are 4xx/5xx", () => {
    for (const [code, v] of Object.entries(ERROR_CATALOG)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(v.status).toBeGreaterThanOrEqual(400);
    }
  });
});
