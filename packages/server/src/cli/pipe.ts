/**
 * A closed pipe is a normal end for a command-line tool: `grove task ls | head -1` closes
 * stdout after one line, and the command must stop quietly with exit 0 instead of dying on an
 * unhandled `write EPIPE`. Node ignores SIGPIPE, so the failure arrives as an
 * 'error' event on the stream; anything other than EPIPE stays fatal.
 */
let installed = false;

/** Makes EPIPE on stdout or stderr end the process with exit code 0, silently. Idempotent. */
export function exitQuietlyOnClosedPipe(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EPIPE") process.exit(0);
      throw e;
    });
  }
}
