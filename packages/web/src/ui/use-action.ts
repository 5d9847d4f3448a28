/**
 * A button's action: runs it, tracks "busy" (buttons disable themselves meanwhile) and keeps
 * the last error for an ErrorBox. Resolves to the result, or undefined when it failed.
 */
import { useCallback, useState } from "react";

export function useAction(): { busy: boolean; error: unknown; run<T>(fn: () => Promise<T>): Promise<T | undefined>; clear(): void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async <T,>(fn: () => Promise<T>) => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: useCallback(() => setError(null), []) };
}
