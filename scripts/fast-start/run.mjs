// @ts-check
/**
 * `pnpm tessera …` and `pnpm grade …`:
 *   node --conditions=@tessera/source scripts/fast-start/run.mjs <app> [args…]
 * runs the app's TypeScript entry from a bundle of the workspace sources (node_modules/.cache/
 * tessera-fast-start/<app>/), rebuilt first when any source it was built from has changed: a
 * fresh clone builds on its first run (a second or two), and an edit is always seen by the next
 * run. See launch.mjs (the ways a start can go), manifest.mjs (what "fresh" means) and build.mjs.
 *
 * Environment: TESSERA_FAST_START=0 runs the sources through tsx; TESSERA_FAST_START_LOG=1 says on
 * stderr which way a start went and why; TESSERA_FAST_START_CACHE=DIR keeps the bundles in DIR.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "./launch.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * Each app's entry, and the worker threads it starts (by their module name, see meta-schedule's
 * entry-point.ts): those are entries of the same bundle, so a worker loads the chunks the app
 * loaded rather than its TypeScript sources through tsx.
 * @type {Record<string, { entry: string, workers?: Record<string, string>, tsx?: (args: readonly string[]) => string | undefined }>}
 */
const APPS = {
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

const [name, ...args] = process.argv.slice(2);
const app = name === undefined ? undefined : APPS[name];
if (app === undefined) {
  process.stderr.write(`usage: node --conditions=@tessera/source scripts/fast-start/run.mjs <${Object.keys(APPS).join("|")}> [args…]\n`);
  process.exit(2);
}
await launch({
  name,
  entry: join(ROOT, app.entry),
  workers: Object.fromEntries(Object.entries(app.workers ?? {}).map(([module, source]) => [module, join(ROOT, source)])),
  root: ROOT,
  cacheDir: join(process.env.TESSERA_FAST_START_CACHE ?? join(ROOT, "node_modules", ".cache", "tessera-fast-start"), name),
  args,
  tsx: app.tsx?.(args),
});
