import { launchEditor } from "../agents/pty.js";
import { AppError } from "../domain/errors.js";

/** Opens a worktree in the configured editor; a command that cannot start is a clear error. */
export async function openInEditor(command: string, path: string, env: NodeJS.ProcessEnv): Promise<void> {
  try {
    await launchEditor(command, path, env);
  } catch (e) {
    throw new AppError("editor_not_configured", `the editor command ${JSON.stringify(command)} could not be started: ${(e as Error).message}`, { command });
  }
}
