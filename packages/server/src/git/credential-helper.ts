/**
 * RR-2 delivery: git gets a credential only through a helper bound to one origin URL. The
 * helper is a shell function that answers `get` by copying file descriptor 3 — which the runner
 * fills from memory (`GitRunOptions.fd3`) and closes — and ignores `store`/`erase`. The secret is
 * never in argv, the environment, a URL or a file; the `-c` arguments below hold no secret.
 */

/** A username/password pair in git's credential form (see providers' `credentialForm`). */
export interface GitCredential {
  username: string;
  password: string;
}

const HELPER = `!f() { test "$1" = get && cat <&3; }; f`;

/**
 * `-c` arguments for a command that may use `cred` against `originUrl`: every inherited helper is
 * reset (a `store` helper would otherwise write the token to disk), then one helper is bound to
 * exactly this origin. With no credential the reset alone remains: nothing can answer.
 */
export function credentialArgs(originUrl: string, cred: GitCredential | null): string[] {
  const args = ["-c", "credential.helper=", "-c", "credential.useHttpPath=true"];
  if (cred) args.push("-c", `credential.${originUrl}.helper=${HELPER}`);
  return args;
}

/** The bytes the helper prints: git's credential protocol. Newlines are refused earlier (registration). */
export function credentialPayload(cred: GitCredential): Buffer {
  if (/[\n\r\0]/.test(cred.username + cred.password)) throw new Error("credential holds a line break");
  return Buffer.from(`username=${cred.username}\npassword=${cred.password}\n`, "utf8");
}
