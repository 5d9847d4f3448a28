import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { userInfo } from "node:os";
import { join } from "node:path";

/** Where Debian's openssh-server puts sshd (installed by .ci/run). */
export const SSHD = ["/usr/sbin/sshd", "/usr/bin/sshd"].find((p) => existsSync(p));

/** A local sshd on 127.0.0.1 with a generated host key and one authorized client key. */
export interface LocalSshd {
  port: number;
  user: string;
  /** GIT_SSH_COMMAND that uses the generated key and trusts the generated host key. */
  sshCommand: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/**
 * `root` is where repositories live: a forced command maps the requested path onto it, so an SSH
 * URL keeps a provider's layout (`ssh://user@127.0.0.1:PORT/acme/widget.git`).
 */
export async function startSshd(dir: string, root: string): Promise<LocalSshd> {
  if (!SSHD) throw new Error("sshd is not installed (apt-get install -y openssh-server; .ci/run does this)");
  mkdirSync(dir, { recursive: true });
  mkdirSync("/run/sshd", { recursive: true });
  const hostKey = join(dir, "host_ed25519");
  const clientKey = join(dir, "client_ed25519");
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey]);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", clientKey]);
  const authorized = join(dir, "authorized_keys");
  execFileSync("cp", [`${clientKey}.pub`, authorized]);
  const port = await freePort();
  const knownHosts = join(dir, "known_hosts");
  const hostPub = execFileSync("cat", [`${hostKey}.pub`], { encoding: "utf8" }).trim();
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${hostPub}\n`);
  const force = join(dir, "git-only.sh");
  writeFileSync(
    force,
    [
      "#!/bin/sh",
      "set -f",
      "cmd=${SSH_ORIGINAL_COMMAND%% *}",
      "path=${SSH_ORIGINAL_COMMAND#* }",
      "path=${path#\\'}; path=${path%\\'}",
      'case "$path" in *..*) exit 1;; esac',
      `case "$cmd" in git-upload-pack|git-receive-pack) exec "$cmd" "${root}$path";; esac`,
      "exit 1",
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  const config = join(dir, "sshd_config");
  writeFileSync(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${authorized}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PubkeyAuthentication yes",
      "PermitRootLogin prohibit-password",
      "StrictModes no",
      "UsePAM no",
      `ForceCommand ${force}`,
      `SetEnv PATH=${process.env.PATH}`,
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(SSHD, ["-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((r) => {
      const s = createServer();
      s.once("error", () => r(true)); // port taken → sshd listens
      s.listen(port, "127.0.0.1", () => s.close(() => r(false)));
    });
    if (ok) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`sshd did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    user: userInfo().username,
    sshCommand: `ssh -i ${clientKey} -o IdentitiesOnly=yes -o UserKnownHostsFile=${knownHosts} -o StrictHostKeyChecking=yes`,
    async close() {
      child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    },
  };
}
