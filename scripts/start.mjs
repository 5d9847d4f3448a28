// `npm start`: rebuilds what is stale, then runs `grove serve` in this same process. One process
// under npm means Ctrl-C reaches the server alone and npm exits with its code (0): a script of
// the form `a && b` runs under sh, which dies of SIGINT itself and makes npm exit 130.
import { fileURLToPath } from "node:url";

await import("./build-if-stale.mjs");
process.argv = [process.argv[0], fileURLToPath(new URL("../packages/server/bin/grove.mjs", import.meta.url)), "serve", ...process.argv.slice(2)];
await import("../packages/server/bin/grove.mjs");
