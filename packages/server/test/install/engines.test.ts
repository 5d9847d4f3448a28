import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
// semver is what npm itself uses to judge `engines`; it is in the tree through npm's own tooling.
const semver = createRequire(import.meta.url)("semver") as {
  satisfies(v: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

describe("install on the supported Node (STACK: Node 20 and 24)", () => {
  it("INSTALL every locked package accepts the lowest Node the README names, so `npm ci` warns no EBADENGINE", () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { engines: { node: string } };
    const lowest = semver.minVersion(pkg.engines.node)!.version;
    const lock = JSON.parse(readFileSync(`${root}package-lock.json`, "utf8")) as {
      packages: Record<string, { engines?: { node?: string } | string[]; version?: string }>;
    };
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      if (range && !semver.satisfies(lowest, range)) refusing.push(`${path}@${entry.version} wants node ${range}`);
    }
    expect(refusing, `packages that refuse node ${lowest}`).toEqual([]);
  });

  it("INSTALL the README's install commands are ones npm 11 accepts (no `npm config set nodedir`)", () => {
    const readme = readFileSync(`${root}README.md`, "utf8");
    expect(readme).not.toMatch(/npm config set nodedir/);
  });
});
