/**
 * An error in the person's words, next to what failed, with the action that fixes it when the
 * screen can perform it. `role="alert"` so screen readers announce it; the raw `code: message`
 * stays visible in small print for bug reports.
 */
import { humanError, type FixAction, type Operation } from "../api/human-errors.js";

export function ErrorBox({ error, context, fixes, operation }: { error: unknown; context?: string; fixes?: Partial<Record<FixAction, () => void>>; operation?: Operation | undefined }) {
  if (error === null || error === undefined) return null;
  const h = humanError(error, operation);
  const fix = h.action && fixes?.[h.action.kind];
  return (
    <div className="error-box" role="alert" data-error-code={h.code}>
      <p className="error-text">
        {context ? <strong>{context}: </strong> : null}
        {h.text}
      </p>
      {fix && h.action ? (
        <button type="button" className="fix" onClick={fix}>
          {h.action.label}
        </button>
      ) : null}
      <small className="error-raw">{h.raw}</small>
    </div>
  );
}
