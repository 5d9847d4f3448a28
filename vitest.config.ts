import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/server/test/**/*.test.ts"],
    pool: "forks",
    // A worker runs file after file in one process with the modules it has loaded (the server's
    // module graph costs a second or more of CPU per file to load again). A hook every file needs
    // lives in the setup file, which vitest evaluates again before every file
    // (test/architecture/shared-test-modules.test.ts keeps hooks out of shared modules).
    isolate: false,
    setupFiles: ["packages/server/test/fixture/setup-file.ts"],
    // A global a test stubs (vi.stubGlobal) is put back before the next test, or the files after
    // it in the same worker would inherit it; setup-file.ts checks that each file ends with the
    // globals every file relies on.
    unstubGlobals: true,
    // The CLI tests run the bundled client (docs/specs/cli.md "How it starts"): rebuild it first when a source is newer.
    globalSetup: ["packages/server/test/cli/bundle-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // 2-core machines: real git, real agent processes and two databases per file. Each worker
    // spends part of its time waiting on those processes (agents, git, Chromium, PostgreSQL):
    // with two workers a quarter of the CPU stayed idle, a third worker uses it
    // (docs/decisions/2026-12-05-three-test-workers.md).
    maxWorkers: 3,
    reporters: ["default", "json"],
    outputFile: { json: ".grove-test/vitest-report.json" },
  },
});
