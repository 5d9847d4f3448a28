import { remoteBench } from "/work/main/packages/server/bench/remote.ts";
import { printTable } from "/work/main/packages/server/bench/util.ts";
printTable(await remoteBench());
process.exit(0);
