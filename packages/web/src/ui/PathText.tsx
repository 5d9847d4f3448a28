/**
 * A path or branch name that wraps only after a "/" (a `<wbr>` there; each name between slashes
 * is kept whole, its hyphens included), never inside a name:
 * "grove/say-hello-kf ua57" is unreadable and cannot be copied by eye (WEB-45).
 */
import { Fragment } from "react";

export function PathText({ text }: { text: string }) {
  const parts = text.split(/(?<=\/)/);
  return (
    <code className="path-text">
      {parts.map((p, i) => (
        // The parts of one string never move, so their position is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Fragment key={i}>
          <span className="path-part">{p}</span>
          {i < parts.length - 1 ? <wbr /> : null}
        </Fragment>
      ))}
    </code>
  );
}
