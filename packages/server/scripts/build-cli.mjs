// Bundles the `grove` client (src/cli/main.ts and the command modules it loads lazily) into
// plain JS under dist/cli/, one chunk per top-level command, so that a client command starts
// without compiling TypeScript (the CLI's own cost). Server modules are not part of
// it: `grove serve` loads them through the launcher (bin/grove.mjs). dist/cli/inputs.json lists
// the sources, so the launcher can tell a stale bundle from a fresh one.
import { build } from "esbuild";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = `${root}dist/cli`;
const tmp = `${out}.tmp-${process.pid}`;
const { version } = JSON.parse(readFileSync(`${root}package.json`, "utf8"));
const result = await build({
  absWorkingDir: root,
  entryPoints: { grove: "src/cli/main.ts" },
  outdir: tmp,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "chunks/[name]-[hash]",
  external: ["bufferutil", "utf-8-validate"],
  // ws and commander are CommonJS: give their require() of Node built-ins a real require.
  banner: { js: 'import { createRequire as __groveRequire } from "node:module"; const require = __groveRequire(import.meta.url);' },
  define: { GROVE_VERSION: JSON.stringify(version) },
  metafile: true,
  minify: true,
  legalComments: "none",
  logLevel: "warning",
});
const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.includes("node_modules"));
writeFileSync(`${tmp}/inputs.json`, JSON.stringify(inputs) + "\n");
// Swap whole directories: old chunks never linger beside new ones.
rmSync(`${out}.old`, { recursive: true, force: true });
try {
  renameSync(out, `${out}.old`);
} catch {
  // first build
}
renameSync(tmp, out);
rmSync(`${out}.old`, { recursive: true, force: true });
