// Lint policy, run inside `npm test`. The layer rules are the architecture (docs/architecture.md):
// domain <- store | git | agents | sandbox <- orchestrator <- api <- cli; the middle folders never
// import each other; only git/, agents/ and sandbox/ (the bwrap probe) start child processes; only
// store/ imports a driver.
import { readdirSync } from "node:fs";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const restrict = (patterns) => ["error", { patterns }];
const layer = (dirs, message) => ({ group: dirs.map((d) => `**/${d}/**`), message });
const CHILD = {
  group: ["node:child_process", "child_process"],
  message: "Only src/git (the git runner), src/agents (the agent runtime) and src/sandbox (its bwrap probe) start processes.",
};
const DRIVERS = { group: ["better-sqlite3", "pg", "kysely"], message: "Only src/store talks to a database; call a store method instead." };

// The orchestrator's use-case folders, lowest first: a folder imports only folders on lower
// levels, never one on its own level or above (the folder-level circle test checks the same from
// the other side). A folder that is not listed here stands above every listed one. The files at
// orchestrator/ itself are the floor (Deps, fault points, registries) except orchestrator.ts, the
// facade on top, which no use case imports.
const ORCHESTRATOR_LEVELS = [
  ["refresh", "inbox", "usage"],
  ["worktrees", "repositories", "runners"],
  ["tasks"],
  ["changes", "lifecycle"],
  ["sessions"],
  ["review"],
];
const ORCHESTRATOR = "packages/server/src/orchestrator";
const orchestratorFolders = readdirSync(ORCHESTRATOR, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const levelOf = (folder) => {
  const i = ORCHESTRATOR_LEVELS.findIndex((level) => level.includes(folder));
  return i === -1 ? ORCHESTRATOR_LEVELS.length : i;
};
const ORCHESTRATOR_LAYER = layer(["api", "cli"], "orchestrator/ composes store, git and agents; it never sees HTTP.");
const FACADE = { group: ["**/orchestrator.js"], message: "orchestrator.ts is the facade on top: a use case never imports it." };
const orchestratorOrder = (folder) => {
  const above = orchestratorFolders.filter((f) => f !== folder && levelOf(f) >= levelOf(folder));
  const rules = [ORCHESTRATOR_LAYER, FACADE, CHILD, DRIVERS];
  if (above.length > 0)
    rules.unshift(
      layer(above, `orchestrator/${folder}/ imports only the folders below it in ORCHESTRATOR_LEVELS (eslint.config.js): ${above.join(", ")} are not.`),
    );
  return { files: [`${ORCHESTRATOR}/${folder}/**/*.ts`], rules: { "no-restricted-imports": restrict(rules) } };
};

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", ".grove-test/**", "**/*.mjs"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-imports": [
        "error",
        {
          paths: [
            { name: "fs", message: "Use the node: prefix." },
            { name: "path", message: "Use the node: prefix." },
          ],
        },
      ],
    },
  },
  {
    files: ["packages/server/src/**/*.ts"],
    ignores: ["packages/server/src/cli/**", "packages/server/src/agents/scripted-agent*.ts"],
    rules: { "no-console": "error" },
  },
  {
    files: ["packages/server/src/domain/**/*.ts"],
    rules: {
      "no-restricted-imports": restrict([layer(["store", "git", "agents", "orchestrator", "api", "cli"], "domain/ is pure: no I/O layers."), CHILD, DRIVERS]),
    },
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
    rules: {
      "no-restricted-imports": restrict([
        layer(["store", "git", "agents", "orchestrator", "api", "cli"], "providers/ sees only domain/: it computes, git/ executes."),
        CHILD,
        DRIVERS,
      ]),
    },
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
    rules: {
      "no-restricted-imports": restrict([
        layer(["store", "git", "agents", "sandbox", "orchestrator", "api", "cli"], "mcp/ sees only domain/: the orchestrator implements its tools."),
        CHILD,
        DRIVERS,
      ]),
    },
  },
  {
    files: ["packages/server/src/orchestrator/**/*.ts"],
    rules: { "no-restricted-imports": restrict([ORCHESTRATOR_LAYER, CHILD, DRIVERS]) },
  },
  {
    files: [`${ORCHESTRATOR}/*.ts`],
    ignores: [`${ORCHESTRATOR}/orchestrator.ts`],
    rules: {
      "no-restricted-imports": restrict([
        layer(orchestratorFolders, "The files at orchestrator/ are the floor every use-case folder stands on: they import none of those folders."),
        ORCHESTRATOR_LAYER,
        CHILD,
        DRIVERS,
      ]),
    },
  },
  ...orchestratorFolders.map(orchestratorOrder),
  {
    files: ["packages/server/src/api/**/*.ts"],
    rules: {
      "no-restricted-imports": restrict([layer(["store", "git", "agents", "cli"], "api/ calls the orchestrator, never a lower layer."), CHILD, DRIVERS]),
    },
  },
  {
    files: ["packages/server/src/cli/**/*.ts"],
    rules: {
      "no-restricted-imports": restrict([
        layer(["store", "git", "agents", "orchestrator", "api"], "the CLI speaks HTTP only (src/cli/client.ts)."),
        CHILD,
        DRIVERS,
      ]),
    },
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
