import type { GitCwd } from "./worktree-link.js";

/** Options of one git invocation (WT-6). */
export interface GitRunOptions {
  /**
   * Working directory of the git process: a plain directory, or a task worktree pinned to its
   * recorded admin dir (SBX-4: `GIT_DIR`/`GIT_WORK_TREE` set, its `.git` file never read).
   */
  cwd: GitCwd;
  /**
   * A pinned call may run the repository's hooks: only the person's own commit, rebase or merge.
   * Every other call in a pinned worktree runs with `core.hooksPath=/dev/null` (SBX-4).
   */
  hooks?: boolean;
  /** Kill the process (and its process group) after this long; default: the runner's default (120 s). */
  timeoutMs?: number;
  /** Extra environment; wins over the runner's defaults (e.g. a credential helper for a managed token). */
  env?: Record<string, string>;
  /** The command may touch the network: ssh runs in batch mode and no askpass program can prompt. */
  network?: boolean;
  /** Written to stdin, which is otherwise closed. */
  input?: string | Buffer;
  /** Exit codes that are not failures (0 always is); e.g. `[1]` for `merge-base` or `diff --no-index`. */
  okExitCodes?: number[];
  /**
   * Stop reading after this many stdout bytes and kill git; the result then has
   * `stdoutTruncated: true` and counts as a success. Guards memory for patches of huge files.
   */
  maxStdoutBytes?: number;
  /**
   * Bytes served to git on file descriptor 3 (inherited by its children), then closed. The
   * credential helper of a managed refresh reads its one secret from there (RR-2): never argv,
   * never the environment.
   */
  fd3?: Buffer;
  /**
   * RR-2 isolation: every inherited `GIT_CONFIG*` variable (GIT_CONFIG_COUNT/KEY_n/VALUE_n,
   * GIT_CONFIG_PARAMETERS, …) is removed, and system and global config are ignored.
   */
  isolatedConfig?: boolean;
  /** Called with each stderr chunk as it arrives (clone/fetch `--progress`). */
  onStderr?: (chunk: string) => void;
}

/** What a git process produced. `stdout` is `stdoutBuffer` decoded as UTF-8. */
export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  stdoutBuffer: Buffer;
  /** Set when `maxStdoutBytes` cut the output short. */
  stdoutTruncated?: boolean;
}
