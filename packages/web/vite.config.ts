import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { prefetchViews } from "./prefetch-views.js";

// The dev server proxies the API (and its WebSockets under /api/v1) to a running
// `grove serve`; in production the server itself serves dist/ at `/`.
const root = fileURLToPath(new URL(".", import.meta.url));
const target = `http://127.0.0.1:${process.env.GROVE_PORT ?? "7420"}`;

export default defineConfig({
  root,
  plugins: [react(), prefetchViews()],
  build: { outDir: fileURLToPath(new URL("./dist", import.meta.url)), emptyOutDir: true, chunkSizeWarningLimit: 1200 },
  server: { proxy: { "/api": { target, ws: true, changeOrigin: true } } },
});
