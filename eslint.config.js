// Lint policy, run inside `npm test`. The layer rules are the architecture (STYLE.md):
// domain <- store | git | agents | sandbox <- orchestrator <- api <- cli; the middle folders never
// import each other; only git/, agents/ and sandbox/ (the bwrap probe) start child processes; only
// store/ imports a driver.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const restrict = (patterns) => ["error", { patterns }];
const layer = (dirs, message) => ({ group: dirs.map((d) => `**/${d}/**`), message });
const CHILD = { group: ["node:child_process", "child_process"], message: "Only src/git (the git runner), src/agents (the agent runtime) and src/sandbox (its bwrap probe) start processes." };
const DRIVERS = { group: ["better-sqlite3", "pg", "kysely"], message: "Only src/store talks to a database; call a store method instead." };

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", ".grove-test/**", "**/*.mjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-imports": ["error", { paths: [{ name: "fs", message: "Use the node: prefix." }, { name: "path", message: "Use the node: prefix." }] }],
    },
  },
  {
    files: ["packages/server/src/**/*.ts"],
    ignores: ["packages/server/src/cli/**", "packages/server/src/agents/scripted-agent*.ts"],
    rules: { "no-console": "error" },
  },
  {
    files: ["packages/server/src/domain/**/*.ts"],
    rules: { "no-restricted-imports": restrict([layer(["store", "git", "agents", "orchestrator", "api", "cli"], "domain/ is pure: no I/O layers."), CHILD, DRIVERS]) },
  },
  {
    files: ["packages/server/src/store/**/*.ts"],
    rules: { "no-restricted-imports": restrict([layer(["git", "agents", "orchestrator", "api", "cli"], "store/ sees only domain/."), CHILD]) },
  },
  {
    files: ["packages/server/src/git/**/*.ts"],
    rules: { "no-restricted-imports": restrict([layer(["store", "agents", "orchestrator", "api", "cli"], "git/ sees only domain/."), DRIVERS]) },
  },
  {
    // RR-8: providers compute (URL layouts, credential forms, ref names); git/ executes.
    files: ["packages/server/src/providers/**/*.ts"],
    rules: { "no-restricted-imports": restrict([layer(["store", "git", "agents", "orchestrator", "api", "cli"], "providers/ sees only domain/: it computes, git/ executes."), CHILD, DRIVERS]) },
  },
  {
    files: ["packages/server/src/agents/**/*.ts"],
    rules: { "no-restricted-imports": restrict([layer(["store", "git", "orchestrator", "api", "cli"], "agents/ sees only domain/."), DRIVERS]) },
  },
  {
    // SBX-1..3: the sandbox seam (mount plan, bwrap probe, egress proxy) is given facts, never looks them up.
    files: ["packages/server/src/sandbox/**/*.ts"],
    rules: { "no-restricted-imports": restrict([layer(["store", "git", "agents", "orchestrator", "api", "cli"], "sandbox/ sees only domain/."), DRIVERS]) },
  },
  {
    files: ["packages/server/src/mcp/**/*.ts"],
    rules: { "no-restricted-imports": restrict([layer(["store", "git", "agents", "sandbox", "orchestrator", "api", "cli"], "mcp/ sees only domain/: the orchestrator implements its tools."), CHILD, DRIVERS]) },
  },
  {
    files: ["packages/server/src/orchestrator/**/*.ts"],
    rules: { "no-restricted-imports": restrict([layer(["api", "cli"], "orchestrator/ composes store, git and agents; it never sees HTTP."), CHILD, DRIVERS]) },
  },
  {
    files: ["packages/server/src/api/**/*.ts"],
    rules: { "no-restricted-imports": restrict([layer(["store", "git", "agents", "cli"], "api/ calls the orchestrator, never a lower layer."), CHILD, DRIVERS]) },
  },
  {
    files: ["packages/server/src/cli/**/*.ts"],
    rules: { "no-restricted-imports": restrict([layer(["store", "git", "agents", "orchestrator", "api"], "the CLI speaks HTTP only (src/cli/client.ts)."), CHILD, DRIVERS]) },
  },
  {
    files: ["packages/web/src/**/*.ts", "packages/web/src/**/*.tsx"],
    rules: { "no-restricted-imports": restrict([{ group: ["**/server/**", "node:*"], message: "web/ imports only @grove/protocol." }]) },
  },
  {
    // Tests read loosely typed JSON answers; precision there buys nothing.
    files: ["packages/*/test/**/*.ts", "packages/**/*.test.ts", "packages/server/bench/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
