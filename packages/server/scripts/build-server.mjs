// Bundles the server and the `grove` commands into one plain-JS file
// (dist/server/grove-server.mjs) so `npm start` neither compiles ~200 TypeScript files through
// tsx nor resolves and reads ~1,000 small files of npm packages on every start (issue 13:
// start-up that does not grow). Only native modules and optional native helpers stay external.
// Each of our modules keeps its own `import.meta.url` (the source file's), so paths it resolves
// relative to itself do not move.
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** Where the bundle goes; scripts/start.mjs imports it. */
export const SERVER_BUNDLE = here("../dist/server/grove-server.mjs");

const ownUrl = {
  name: "own-import-meta-url",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, "utf8")).replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
      loader: "ts",
    }));
  },
};

/** Builds the bundle (about a second); resolves when it is written. */
export async function buildServer() {
  await build({
    entryPoints: [here("../src/server-main.ts")],
    outfile: SERVER_BUNDLE,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    plugins: [ownUrl],
    external: ["better-sqlite3", "node-pty", "pg-native", "bufferutil", "utf-8-validate", "tsx", "tsx/*"],
    // Bundled CommonJS packages call require() for Node's built-ins.
    banner: { js: 'import { createRequire as __groveRequire } from "node:module"; const require = __groveRequire(import.meta.url);' },
    legalComments: "none",
    logLevel: "warning",
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildServer();
