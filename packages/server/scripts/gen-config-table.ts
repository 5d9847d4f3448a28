// Rewrites README.md's configuration table from the variable schema (packages/server/src/config-schema.ts);
// packages/server/test/config/config-schema.test.ts fails while the two differ.
// Run: node --import tsx packages/server/scripts/gen-config-table.ts
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { CONFIG_TABLE_END, CONFIG_TABLE_START, configurationTable } from "../src/config-schema.js";

const readme = resolve(import.meta.dirname, "../../../README.md");
const text = readFileSync(readme, "utf8");
const start = text.indexOf(CONFIG_TABLE_START);
const end = text.indexOf(CONFIG_TABLE_END);
if (start < 0 || end < start) throw new Error(`README.md lacks the ${CONFIG_TABLE_START} … ${CONFIG_TABLE_END} markers`);
writeFileSync(readme, `${text.slice(0, start + CONFIG_TABLE_START.length)}\n${configurationTable()}\n${text.slice(end)}`);
