// @ts-check
/**
 * The apps that start from fast-start bundles (run.mjs), and where their bundles are kept: shared
 * by run.mjs (`pnpm tessera`, `pnpm grade`) and by the tests that start the same code (prebuilt.mjs),
 * so that both use one bundle per app.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Each app's entry, and the worker threads it starts (by their module name, see meta-schedule's
 * entry-point.ts): those are entries of the same bundle, so a worker loads the chunks the app
 * loaded rather than its TypeScript sources through tsx. Paths relative to the workspace root.
 * @type {Record<string, { entry: string, workers?: Record<string, string>, tsx?: (args: readonly string[]) => string | undefined }>}
 */
export const APPS = {
  tessera: { entry: "apps/cli/src/main.ts", tsx: importsUserCode },
  grade: {
    entry: "apps/autograder/src/main.ts",
    workers: { "rounds-worker": "apps/autograder/src/grade/rounds/rounds-worker.ts", "grade-worker": "apps/autograder/src/batch/grade-worker.ts" },
  },
};

/**
 * `tessera tune --space FILE` imports the user's file, which may be TypeScript or import the
 * workspace packages (their TypeScript sources): that needs tsx's loader.
 */
function importsUserCode(/** @type {readonly string[]} */ args) {
  const space = args.findIndex((a, i) => (a === "--space" && args[i + 1] !== "auto") || (a.startsWith("--space=") && a !== "--space=auto"));
  return space < 0 ? undefined : "--space imports a file of the user's";
}

/** The folder of the bundles named `name` (TESSERA_FAST_START_CACHE=DIR keeps them in DIR). */
export function cacheDirOf(/** @type {string} */ name) {
  return join(process.env.TESSERA_FAST_START_CACHE ?? join(ROOT, "node_modules", ".cache", "tessera-fast-start"), name);
}

/** The absolute paths of app `name`'s worker entries, by module name. */
export function workerSources(/** @type {string} */ name) {
  return Object.fromEntries(Object.entries(APPS[name]?.workers ?? {}).map(([module, source]) => [module, join(ROOT, source)]));
}
