/**
 * SBX-3: a session whose agent runs outside the OS sandbox (its profile says `sandbox: "off"`,
 * or no sandbox works on this machine and it is the scripted agent) is marked wherever it shows.
 */
export function UnconfinedBadge() {
  return (
    <span
      className="badge unconfined"
      data-sandbox="unconfined"
      title="This agent runs without Grove's OS sandbox: it can read and write whatever your user can"
    >
      unconfined
    </span>
  );
}
