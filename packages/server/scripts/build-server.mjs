// Bundles the server and the `grove` commands into one plain-JS file
// (dist/server/grove-server.mjs) so `npm start` does not compile ~200 TypeScript files through
// tsx on every start (issue 13: start-up that does not grow). npm packages stay external (they
// are plain JS already); @grove/protocol is TypeScript and goes in. Each module keeps its own
// `import.meta.url` (the source file's), so paths it resolves relative to itself do not move.
import { readFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** Where the bundle goes; scripts/start.mjs imports it. */
export const SERVER_BUNDLE = here("../dist/server/grove-server.mjs");

const ownUrl = {
  name: "own-import-meta-url",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith("@grove/") ? undefined : { path: args.path, external: true }));
    b.onLoad({ filter: /\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, "utf8")).replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
      loader: "ts",
    }));
  },
};

/** Builds the bundle (about a second); resolves when it is written. */
export async function buildServer() {
  await build({
    entryPoints: [here("../src/cli/main.ts")],
    outfile: SERVER_BUNDLE,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    plugins: [ownUrl],
    legalComments: "none",
    logLevel: "warning",
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildServer();
