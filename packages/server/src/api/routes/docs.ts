import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { FastifyInstance } from "fastify";

/**
 * `/api/docs`: the OpenAPI document rendered by Redoc (a pinned dependency, served from
 * node_modules: no CDN, no network). The page fetches `/api/v1/openapi.json`, passing on the
 * `?token=` it was opened with, so it also works on a server with GROVE_AUTH_TOKEN.
 */
export function docsRoutes(app: FastifyInstance): void {
  const bundle = createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js");
  let script: string | undefined;
  app.get("/api/docs", async (_req, reply) => reply.type("text/html; charset=utf-8").send(PAGE));
  app.get("/api/docs/redoc.standalone.js", async (_req, reply) => {
    script ??= readFileSync(bundle, "utf8");
    return reply.type("application/javascript; charset=utf-8").header("cache-control", "public, max-age=3600").send(script);
  });
  app.get("/api/docs/init.js", async (_req, reply) => reply.type("application/javascript; charset=utf-8").send(INIT));
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Grove API</title>
<style>body { margin: 0; font-family: system-ui, sans-serif; }</style>
</head>
<body>
<div id="redoc"></div>
<script src="/api/docs/redoc.standalone.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;

const INIT = `(() => {
  const token = new URLSearchParams(location.search).get("token");
  const spec = "/api/v1/openapi.json" + (token ? "?token=" + encodeURIComponent(token) : "");
  Redoc.init(spec, { hideDownloadButton: false, expandResponses: "200,201,202", theme: { typography: { fontFamily: "system-ui, sans-serif", headings: { fontFamily: "system-ui, sans-serif" } } } }, document.getElementById("redoc"));
})();
`;
