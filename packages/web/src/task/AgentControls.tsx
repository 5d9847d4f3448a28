/**
 * AG-2 on the task page: what the agent reported about itself — its mode (and model) with a
 * switch (`POST /sessions/:id/mode|model`), its latest plan, and its slash commands as hints
 * under the prompt box. All of it arrives on the session record (`session.updated` frames).
 */
import type { AgentCommand, Session } from "@grove/protocol";
import { call } from "../api/client.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";
import { PlanEntries } from "./PlanEntries.js";

export function ModeSwitch({ session, readOnly, onSaved }: { session: Session; readOnly: boolean; onSaved(s: Session): void }) {
  const action = useAction();
  const modes = session.modes?.availableModes ?? [];
  const models = session.models?.availableModels ?? [];
  if (modes.length === 0 && models.length === 0) return null;
  const choose = (what: "mode" | "model", value: string) =>
    void action.run(async () =>
      onSaved(
        await (what === "mode"
          ? call("setSessionMode", { params: { id: session.id }, body: { modeId: value } })
          : call("setSessionModel", { params: { id: session.id }, body: { modelId: value } })),
      ),
    );
  const current = modes.find((m) => m.id === session.modes?.currentModeId);
  return (
    <div className="agent-options" aria-label="Agent options" role="group">
      {modes.length > 0 ? (
        <Field label="Agent mode" hint={current?.description}>
          <select
            value={session.modes?.currentModeId ?? ""}
            disabled={readOnly || action.busy}
            onChange={(e) => choose("mode", e.target.value)}
            data-current-mode={session.modes?.currentModeId}
          >
            {modes.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </Field>
      ) : null}
      {models.length > 0 ? (
        <Field label="Agent model">
          <select value={session.models?.currentModelId ?? ""} disabled={readOnly || action.busy} onChange={(e) => choose("model", e.target.value)}>
            {models.map((m) => (
              <option key={m.modelId} value={m.modelId}>
                {m.name}
              </option>
            ))}
          </select>
        </Field>
      ) : null}
      <ErrorBox error={action.error} context="Could not switch" />
    </div>
  );
}

/** The agent's latest plan, entry by entry with its status. */
export function PlanView({ session }: { session: Session }) {
  const plan = session.plan ?? [];
  if (plan.length === 0) return null;
  const done = plan.filter((p) => p.status === "completed").length;
  return (
    <section className="plan" aria-labelledby={`plan-${session.id}`}>
      <h4 id={`plan-${session.id}`}>
        Plan <span className="muted">{`${done} of ${plan.length} done`}</span>
      </h4>
      <PlanEntries plan={plan} />
    </section>
  );
}

/**
 * Slash commands under the prompt box: all of them while the box is empty; while the person
 * types `/…`, those that start with it. Picking one puts `/name ` in the box.
 */
export function CommandHints({ commands, prompt, onPick }: { commands: AgentCommand[] | undefined; prompt: string; onPick(text: string): void }) {
  if (!commands || commands.length === 0) return null;
  const typed = prompt.trimStart();
  if (typed && !typed.startsWith("/")) return null;
  const word = typed.slice(1).split(/\s/)[0] ?? "";
  if (typed.includes(" ")) return null;
  const shown = commands.filter((c) => c.name.startsWith(word));
  if (shown.length === 0) return null;
  return (
    <ul className="command-hints plain" aria-label="Agent commands">
      {shown.map((c) => (
        <li key={c.name}>
          <button type="button" className="secondary small" onClick={() => onPick(`/${c.name} `)} title={c.hint ? `/${c.name} <${c.hint}>` : `/${c.name}`}>
            {`/${c.name}`}
          </button>{" "}
          <span className="muted">
            {c.description}
            {c.hint ? ` — ${c.hint}` : ""}
          </span>
        </li>
      ))}
    </ul>
  );
}
