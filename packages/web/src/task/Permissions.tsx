/** Pending permission questions of a session (policy "ask"): one button per option plus Dismiss. */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../api/client.js";
import { keys } from "../api/keys.js";
import { listPermissions } from "../api/resources.js";
import type { PermissionAsk } from "@grove/protocol";
import { ErrorBox } from "../ui/ErrorBox.js";
import { useAction } from "../ui/use-action.js";
import { usePaletteCommands } from "../ui/palette-commands.js";
import { useMemo, useRef } from "react";

export function Permissions({ sessionId, active }: { sessionId: string; active: boolean }) {
  const qc = useQueryClient();
  const asks = useQuery({ queryKey: keys.permissions(sessionId), queryFn: () => listPermissions(sessionId), enabled: active });
  const action = useAction();
  const answer = (ask: PermissionAsk, optionId: string | null) =>
    void action.run(async () => {
      await call("answerPermissionRequest", { params: { id: sessionId, requestId: ask.requestId }, body: { optionId } });
      qc.setQueryData<PermissionAsk[]>(keys.permissions(sessionId), (list) => list?.filter((a) => a.requestId !== ask.requestId));
    });
  const list = active ? (asks.data ?? []) : [];
  const first = useRef<HTMLDivElement>(null);
  // WEB-36: "Answer the permission" in the palette puts the focus on the first ask's first option.
  const commands = useMemo(
    () =>
      list.length > 0
        ? [{ id: "answer-permission", label: "Answer the permission", hint: list[0]!.title, run: () => first.current?.querySelector("button")?.focus() }]
        : null,
    [list],
  );
  usePaletteCommands(`permissions-${sessionId}`, commands);
  return (
    <div className="permissions" aria-live="assertive">
      <ErrorBox error={asks.error ?? action.error} context="Permission request" />
      {list.map((ask, i) => (
        <div
          key={ask.requestId}
          ref={i === 0 ? first : undefined}
          className="permission"
          role="group"
          aria-label="Permission request"
          data-request-id={ask.requestId}
        >
          <p>
            <strong>Permission requested: </strong>
            {ask.title}
          </p>
          <div className="actions">
            {ask.options.map((o) => (
              <button
                key={o.optionId}
                type="button"
                className={o.kind.startsWith("reject") ? "secondary" : ""}
                data-option-id={o.optionId}
                disabled={action.busy}
                onClick={() => answer(ask, o.optionId)}
              >
                {o.name}
              </button>
            ))}
            <button type="button" className="secondary" disabled={action.busy} onClick={() => answer(ask, null)}>
              Dismiss
            </button>
          </div>
        </div>
      ))}
    </div>
  );
}
