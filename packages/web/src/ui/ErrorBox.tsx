/**
 * An error in the person's words, next to what failed, with the action that fixes it when the
 * screen can perform it. `role="alert"` so screen readers announce it. WEB-24: the error is said
 * once; the raw `code: message` (for bug reports) waits behind a closed Details toggle.
 */
import { humanError, type FixAction, type Operation } from "../api/human-errors.js";
import { Link } from "../router.js";

export function ErrorBox({
  error,
  context,
  fixes,
  operation,
}: {
  error: unknown;
  context?: string;
  fixes?: Partial<Record<FixAction, () => void>>;
  operation?: Operation | undefined;
}) {
  if (error === null || error === undefined) return null;
  const h = humanError(error, operation);
  const fix = h.action && fixes?.[h.action.kind];
  return (
    <div className="error-box" role="alert" data-error-code={h.code}>
      <p className="error-text">
        {context ? <strong>{context}: </strong> : null}
        {h.text}
      </p>
      {h.link ? (
        <Link className="fix-link" href={h.link.href}>
          {h.link.label}
        </Link>
      ) : null}
      {fix && h.action ? (
        <button type="button" className="fix" onClick={fix}>
          {h.action.label}
        </button>
      ) : null}
      <details className="error-details">
        <summary>Details</summary>
        <code className="error-raw">{h.raw}</code>
      </details>
    </div>
  );
}
