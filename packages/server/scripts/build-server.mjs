// Bundles the server and the `grove` commands into one plain-JS file
// (dist/server/grove-server.cjs) so `npm start` neither compiles ~200 TypeScript files through
// tsx nor resolves and reads ~1,000 small files of npm packages on every start (
// start-up that does not grow). Only native modules and optional native helpers stay external.
// Each of our modules keeps its own `import.meta.url` (the source file's), so paths it resolves
// relative to itself do not move.
// The bundle is a CommonJS function body, not an ES module: scripts/load-server.mjs compiles it
// with V8's code cache (Node 20 has no module compile cache), which cuts the parse and the lazy
// compilation of ~4 MB of JavaScript from every start. A function restored from that cache cannot
// call `import()`, so dynamic imports of packages become require() here, and the one import of a
// file URL (provider plugins) goes through the loader's hook.
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** Where the bundle goes; scripts/start.mjs imports it. */
export const SERVER_BUNDLE = here("../dist/server/grove-server.cjs");

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
    format: "cjs",
    target: "node20",
    supported: { "dynamic-import": false },
    plugins: [ownUrl],
    external: ["better-sqlite3", "node-pty", "pg-native", "bufferutil", "utf-8-validate", "tsx", "tsx/*"],
    legalComments: "none",
    // Whitespace and syntax only: a third less to read and hash at every start; names stay, so
    // stack traces in server.log still name their functions.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "warning",
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildServer();
