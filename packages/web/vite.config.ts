import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The dev server proxies the API (and its WebSocket at /api/v1/events) to a running
// `grove serve`; in production the server itself serves dist/ at `/`.
const root = fileURLToPath(new URL(".", import.meta.url));
const target = `http://127.0.0.1:${process.env.GROVE_PORT ?? "7420"}`;

export default defineConfig({
  root,
  build: { outDir: fileURLToPath(new URL("./dist", import.meta.url)), emptyOutDir: true },
  server: { proxy: { "/api": { target, ws: true, changeOrigin: true } } },
});
