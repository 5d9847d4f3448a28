/**
 * A button's action: runs it, tracks "busy" (buttons disable themselves meanwhile) and keeps
 * the last error for an ErrorBox. Resolves to the result, or undefined when it failed.
 */
import { useCallback, useEffect, useState } from "react";
import { ApiError } from "../api/client.js";
import { events } from "../live/events.js";

export function useAction(): { busy: boolean; error: unknown; run<T>(fn: () => Promise<T>): Promise<T | undefined>; clear(): void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async <T>(fn: () => Promise<T>) => {
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
  // WEB-19: "the server cannot be reached" is no longer true once the stream is back; an answer
  // the server gave (an ApiError) stays until the person acts again.
  useEffect(() => events.on("reconnected", () => setError((e: unknown) => (e === null || e instanceof ApiError ? e : null))), []);
  return { busy, error, run, clear: useCallback(() => setError(null), []) };
}
