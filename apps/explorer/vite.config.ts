import { defineConfig } from "vite";

// The workspace packages are resolved to their TypeScript sources (no prior build), as in the tests.
export default defineConfig({
  base: "./",
  resolve: { conditions: ["@tessera/source"] },
  worker: { format: "es" },
  build: { target: "es2022", chunkSizeWarningLimit: 4096 },
  server: { host: "127.0.0.1" },
  preview: { host: "127.0.0.1" },
});
