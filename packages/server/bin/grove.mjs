#!/usr/bin/env node
// Launcher of the `grove` CLI: the sources are TypeScript, run through tsx's ESM loader hooks
// (registered in-process; Node 20 has no type stripping). `npm start` = `grove serve`.
import { register } from "tsx/esm/api";

register();
const { runCli } = await import("../src/cli/main.ts");
process.exitCode = await runCli(process.argv.slice(2));
