/**
 * Agent text as Markdown: parsed by `marked`, then sanitized by DOMPurify so an agent (or a
 * file it quotes) can never inject script, handlers or styles into the page. Links open in a
 * new tab without the opener.
 */
import DOMPurify from "dompurify";
import { marked } from "marked";

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/** Safe HTML for `dangerouslySetInnerHTML`. */
export function markdownHtml(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: true });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ["style", "form", "input", "button", "img"], FORBID_ATTR: ["style"] });
}
