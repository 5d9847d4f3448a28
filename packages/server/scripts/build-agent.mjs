// Bundles the scripted agent into one plain-JS file (dist/scripted-agent.mjs) so that each
// agent process starts without compiling TypeScript: about 3× faster than through tsx, which
// matters when dozens of sessions launch at once. profiles.ts uses the bundle only while it is
// newer than every scripted-agent*.ts source, and falls back to tsx otherwise.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
await build({
  entryPoints: [here("../src/agents/scripted-agent.ts")],
  outfile: here("../dist/scripted-agent.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  legalComments: "none",
  // The MCP SDK's client (the `mcp` command) pulls in CommonJS packages that `require` Node's
  // built-ins; an ESM bundle gives them a real `require`.
  banner: { js: 'import { createRequire as __groveCreateRequire } from "node:module"; const require = __groveCreateRequire(import.meta.url);' },
  logLevel: "warning",
});
