import type { HtmlTagDescriptor, Plugin, Rollup } from "vite";

/**
 * WEB-18: the page names every lazily loaded chunk (a view's script, what it imports, its style
 * sheet) as `<link rel="prefetch">`. The browser fetches them into its HTTP cache once the page has
 * loaded, without parsing or running them; the server marks hashed assets immutable, so a view
 * opened while the server is down loads from that cache. Running each view's module ahead of need
 * (an `import()` per view) cost every page open the compile and evaluation of all of them.
 *
 * The service worker (WEB-27) precaches what index.html names, so the chunks are in its cache too.
 */
export function prefetchViews(): Plugin {
  return {
    name: "grove-prefetch-views",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(_html, ctx) {
        if (!ctx.bundle) return [];
        return prefetchTags(ctx.bundle);
      },
    },
  };
}

/** Every chunk and style sheet the entry does not load up front, as prefetch links. */
function prefetchTags(bundle: Rollup.OutputBundle): HtmlTagDescriptor[] {
  const eager = new Set<string>();
  const visit = (name: string) => {
    const chunk = bundle[name];
    if (eager.has(name) || chunk?.type !== "chunk") return;
    eager.add(name);
    for (const css of chunk.viteMetadata?.importedCss ?? []) eager.add(css);
    chunk.imports.forEach(visit);
  };
  for (const [name, chunk] of Object.entries(bundle)) if (chunk.type === "chunk" && chunk.isEntry) visit(name);
  const tags: HtmlTagDescriptor[] = [];
  for (const [name, file] of Object.entries(bundle)) {
    if (eager.has(name)) continue;
    if (file.type === "chunk") tags.push(link(name, { as: "script", crossorigin: "" }));
    else if (name.endsWith(".css")) tags.push(link(name, { as: "style" }));
  }
  return tags;
}

const link = (name: string, attrs: Record<string, string>): HtmlTagDescriptor => ({
  tag: "link",
  attrs: { rel: "prefetch", href: `/${name}`, ...attrs },
  injectTo: "head",
});
