// @ts-check
/**
 * A prebuilt bundle of TypeScript entries for tests that start child processes or worker threads:
 * the child runs `node BUNDLE.mjs` instead of `node --import tsx SOURCE.ts`, which transforms the
 * whole source graph through tsx's loader at every start (1.5–2.5 CPU s a start on two cores). The
 * bundle is fast-start's (build.mjs, manifest.mjs): kept under node_modules/.cache/tessera-fast-start/NAME,
 * rebuilt when any source it was built from has changed, so a test always runs the current code.
 * A test that is about the tsx path itself keeps starting tsx.
 */
import { join } from "node:path";
import { APPS, ROOT, cacheDirOf, workerSources } from "./apps.mjs";
import { checkFresh } from "./manifest.mjs";

/** Bundles of this process, by name: one build per test process at most. */
/** @type {Map<string, Promise<{ entry: string, workers: Record<string, string> }>>} */
const built = new Map();

/**
 * The bundle `name` of `entry` and the further entries `workers` (module name → absolute path of
 * its TypeScript source), built when missing or stale: absolute paths of each entry's `.mjs`.
 * @param {{ name: string, entry: string, workers?: Record<string, string> }} opts
 * @returns {Promise<{ entry: string, workers: Record<string, string> }>}
 */
export function prebuiltBundle(opts) {
  let bundle = built.get(opts.name);
  if (bundle === undefined) {
    bundle = build(opts);
    built.set(opts.name, bundle);
  }
  return bundle;
}

/**
 * The bundle of app `name` of apps.mjs (`grade`, `tessera`): the very bundle `pnpm grade` / `pnpm tessera` start from.
 * @param {string} name
 */
export function prebuiltApp(name) {
  const app = APPS[name];
  if (app === undefined) throw new Error(`prebuiltApp: no app ${name} in scripts/fast-start/apps.mjs (it has ${Object.keys(APPS).join(", ")})`);
  return prebuiltBundle({ name, entry: join(ROOT, app.entry), workers: workerSources(name) });
}

async function build(/** @type {{ name: string, entry: string, workers?: Record<string, string> }} */ opts) {
  const cacheDir = cacheDirOf(opts.name);
  const workers = opts.workers ?? {};
  const fresh = checkFresh(cacheDir, workers);
  if (fresh.fresh) return { entry: fresh.entry, workers: fresh.workers };
  // By URL, not a literal: a bundle that includes this module (a bundled test support script) loads the builder from here.
  /** @type {typeof import("./build.mjs")} */
  const { buildBundle } = await import(new URL("./build.mjs", import.meta.url).href);
  return buildBundle({ name: opts.name, entry: opts.entry, workers, root: ROOT, cacheDir });
}
