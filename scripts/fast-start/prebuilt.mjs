// @ts-check
/**
 * A prebuilt bundle of TypeScript entries for tests that start child processes: the child runs
 * `node BUNDLE.mjs` instead of `node --import tsx SOURCE.ts`, which transforms the whole source
 * graph through tsx's loader at every start (1.5–2 CPU s a child on two cores). The bundle is
 * fast-start's (build.mjs, manifest.mjs): kept under node_modules/.cache/tessera-fast-start/NAME,
 * rebuilt when any source it was built from has changed, so a test always runs the current code.
 * A test that is about the tsx path itself keeps starting tsx.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkFresh } from "./manifest.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

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

async function build(/** @type {{ name: string, entry: string, workers?: Record<string, string> }} */ opts) {
  const cacheDir = join(process.env.TESSERA_FAST_START_CACHE ?? join(ROOT, "node_modules", ".cache", "tessera-fast-start"), opts.name);
  const workers = opts.workers ?? {};
  const fresh = checkFresh(cacheDir, workers);
  if (fresh.fresh) return { entry: fresh.entry, workers: fresh.workers };
  // By URL, not a literal: a bundle that includes this module (a bundled test support script) loads the builder from here.
  /** @type {typeof import("./build.mjs")} */
  const { buildBundle } = await import(new URL("./build.mjs", import.meta.url).href);
  return buildBundle({ name: opts.name, entry: opts.entry, workers, root: ROOT, cacheDir });
}
