import { defineConfig } from "vitest/config";

// Workspace packages export their TypeScript sources under the
// "@tessera/source" condition, so tests never need a prior build.
const conditions = ["@tessera/source", "import", "module", "node", "default"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@tessera/source"] } },
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "apps/*/test/**/*.test.ts",
      "assignments/*/test/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**", "**/dist/**"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
