/** A labelled form control: `<label for>` plus the control, and an optional hint it is described by. */
import { cloneElement, useId, type ReactElement } from "react";

export function Field({ label, hint, children }: { label: string; hint?: string; children: ReactElement<{ id?: string; "aria-describedby"?: string }> }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label className="label" htmlFor={id}>
        {label}
      </label>
      {cloneElement(children, { id, "aria-describedby": hintId })}
      {hint ? (
        <small className="hint" id={hintId}>
          {hint}
        </small>
      ) : null}
    </div>
  );
}

/** Short, local date-time for lists. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}
