import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/server/test/**/*.test.ts"],
    pool: "forks",
    // The CLI tests run the bundled client (docs/specs/cli.md "How it starts"): rebuild it first when a source is newer.
    globalSetup: ["packages/server/test/cli/bundle-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // 2-core machines: real git, real agent processes and two databases per file.
    maxWorkers: 2,
    reporters: ["default", "json"],
    outputFile: { json: ".grove-test/vitest-report.json" },
  },
});
