/**
 * Agent text as Markdown: parsed by `marked`, then sanitized by DOMPurify so an agent (or a
 * file it quotes) can never inject script, handlers or styles into the page. Links open in a
 * new tab without the opener.
 */
import DOMPurify from "dompurify";
import { marked } from "marked";

/**
 * The link hook is added on first use, not on import: DOMPurify has methods only where a DOM
 * exists, and the page's components are also rendered without one (their unit tests).
 */
let linksHooked = false;
function hookLinks(): void {
  if (linksHooked) return;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
  });
  linksHooked = true;
}

/** Rendered texts, so a row scrolled out and back in (a virtual list remounts it) is not parsed again. */
const cache = new Map<string, string>();
const CACHE_MAX = 2000;

/** Safe HTML for `dangerouslySetInnerHTML`. */
export function markdownHtml(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  hookLinks();
  const html = DOMPurify.sanitize(marked.parse(text, { async: false, gfm: true, breaks: true }), {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["style", "form", "input", "button", "img"],
    FORBID_ATTR: ["style"],
  });
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(text, html);
  return html;
}
