/**
 * WEB-44: an agent profile's permission policy and sandbox, changed on the Settings page
 * (`PATCH /agents/:name`, the person only), kept by the server and in force for the agent's next
 * session. Only what changed is sent; a refusal is said in words and nothing changes.
 */
import type { AgentProfile } from "@grove/protocol";
import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { keys } from "../api/keys.js";
import { ErrorBox } from "../ui/ErrorBox.js";
import { Field } from "../ui/Field.js";
import { useAction } from "../ui/use-action.js";
import { patchAgent } from "./settings-api.js";

export function AgentChoices({ profile }: { profile: AgentProfile }) {
  const qc = useQueryClient();
  const action = useAction();
  const [policy, setPolicy] = useState(profile.permissionPolicy);
  const [sandbox, setSandbox] = useState<"confined" | "off">(profile.sandbox ?? "confined");
  const [said, setSaid] = useState("");
  const shownSandbox = profile.sandbox ?? "confined";
  const changed = policy !== profile.permissionPolicy || sandbox !== shownSandbox;
  const save = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      setSaid("");
      const next = await patchAgent(profile.name, {
        ...(policy !== profile.permissionPolicy ? { permissionPolicy: policy } : {}),
        ...(sandbox !== shownSandbox ? { sandbox } : {}),
      });
      qc.setQueryData<AgentProfile[]>(keys.agents, (list) => list?.map((p) => (p.name === next.name ? { ...p, ...next } : p)));
      setSaid("Saved: the agent's next session follows it.");
    });
  };
  return (
    <form className="agent-choices" aria-label={`${profile.name} choices`} onSubmit={save}>
      <Field label="Before it changes files or runs commands">
        <select name="permissionPolicy" value={policy} onChange={(e) => setPolicy(e.target.value as AgentProfile["permissionPolicy"])}>
          <option value="ask">Ask me</option>
          <option value="auto_approve">Do not ask</option>
        </select>
      </Field>
      <Field label="Sandbox">
        <select name="sandbox" value={sandbox} onChange={(e) => setSandbox(e.target.value as "confined" | "off")}>
          <option value="confined">Confined to the task's worktree</option>
          <option value="off">Off: runs with your user's access</option>
        </select>
      </Field>
      <div className="actions">
        <button type="submit" className="secondary" disabled={!changed || action.busy}>
          {`Save ${profile.name}`}
        </button>
        {said ? (
          <span role="status" className="muted">
            {said}
          </span>
        ) : null}
      </div>
      <ErrorBox error={action.error} context={`Save ${profile.name}`} />
    </form>
  );
}
