import type { Command } from "commander";
import { GroveClient, defaultServerHelp, defaultServerUrl } from "./client.js";
import { Output } from "./output.js";
import { cliToken } from "./token.js";

/** The options every command takes (docs/specs/cli.md, README "The `grove` CLI"). */
export interface CommonOptions {
  json?: boolean;
  server?: string;
}

/** What a command action works with: an HTTP client and the output channel. */
export interface CommandContext {
  client: GroveClient;
  out: Output;
  /** The token the client sends (GROVE_AUTH_TOKEN or the home's person token), for the event socket. */
  token: string | undefined;
}

/** Adds `--json` and `--server URL` to a command. */
export function withCommonOptions(cmd: Command): Command {
  return cmd.option("--json", "machine output: one JSON document on stdout").option("--server <url>", `Grove server URL (default ${defaultServerHelp()})`);
}

/**
 * Builds the context of one invocation. Options may sit on the program or on the leaf command
 * (`grove --json task ls` and `grove task ls --json` both work), hence `optsWithGlobals`.
 */
export function contextOf(cmd: Command, env: NodeJS.ProcessEnv = process.env): CommandContext {
  const opts = cmd.optsWithGlobals<CommonOptions>();
  const server = opts.server ?? defaultServerUrl(env);
  const token = cliToken(env, server);
  const client = new GroveClient({ server, token });
  return { client, out: new Output({ json: opts.json === true }), token };
}
