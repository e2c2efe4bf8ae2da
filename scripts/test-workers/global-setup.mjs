// @ts-check
/**
 * vitest's global setup: the meta-schedule's worker entries — the runner's child process, the
 * replay worker threads of the search, the builder's worker — start in the tests from one esbuild
 * bundle of their TypeScript sources (scripts/fast-start/prebuilt.mjs: fast-start's builder, rebuilt
 * only when a source it was built from changed), not from the sources through tsx's loader. A start through tsx costs
 * 1.5–2.2 CPU s (its loader, then every module of the child transformed or read from its cache);
 * from the bundle it is a plain `node` start of one prebuilt file. The tests start about fifty
 * such children and threads. The bundle behaves as the sources do (see build.mjs), and the way
 * the sources are found and started is tested by entry-point.test.ts with these variables unset.
 *
 * The variables are the ones `resolveEntryPoint` honours (TESSERA_WORKER_ENTRY_<NAME>); one set
 * already is left alone. TESSERA_TEST_WORKER_BUNDLE=0 keeps the tsx starts. A bundle that cannot
 * be built (a syntax error, say) leaves the tsx starts too, which then report the error as before.
 *
 * It also sets NODE_COMPILE_CACHE (unless set) for the Node processes the tests start: on Node 22.1
 * and later (the slow suite runs on Node 24 in CI) a process then keeps V8's compiled code of the
 * files it loads in node_modules/.cache/tessera-compile-cache, and the next start of the same file
 * (a bundle started tens of times: the bench scripts' refusals, the grader's command lines, workers)
 * skips most of its parse: 0.85 → 0.70 CPU s for a bench bundle that refuses its options. Node 20
 * ignores the variable. The cache is checked against each file's contents, so a stale one is never
 * used; the sandbox's hosts get an environment of their own and do not see it.
 * TESSERA_TEST_COMPILE_CACHE=0 leaves it unset.
 */
import { join } from "node:path";
import { ROOT } from "../fast-start/apps.mjs";
import { prebuiltBundle } from "../fast-start/prebuilt.mjs";

const SRC = join(ROOT, "packages", "meta-schedule", "src");

/** The bundle's entry (the runner's child) and its other workers, by their module names (entry-point.ts). */
const ENTRY = ["runner-child", join(SRC, "runner", "runner-child.ts")];
const WORKERS = { "replay-worker": join(SRC, "search", "replay-worker.ts"), "build-worker": join(SRC, "builder", "build-worker.ts") };

/** The environment variable that points `resolveEntryPoint` at a worker's file. */
export function entryVariable(/** @type {string} */ module) {
  return `TESSERA_WORKER_ENTRY_${module.toUpperCase().replace(/-/g, "_")}`;
}

/** Where the tests' child processes keep V8's compiled code (see the header). */
export const COMPILE_CACHE = join(ROOT, "node_modules", ".cache", "tessera-compile-cache");

export default async function setup() {
  if ((process.env.NODE_COMPILE_CACHE ?? "") === "" && process.env.TESSERA_TEST_COMPILE_CACHE !== "0") process.env.NODE_COMPILE_CACHE = COMPILE_CACHE;
  if (process.env.TESSERA_TEST_WORKER_BUNDLE === "0") return;
  let bundle;
  try {
    bundle = await prebuiltBundle({ name: ENTRY[0], entry: ENTRY[1], workers: WORKERS });
  } catch (err) {
    process.stderr.write(`test-workers: no worker bundle, the tests start workers through tsx: ${err instanceof Error ? err.message : String(err)}\n`);
    return;
  }
  const files = { [ENTRY[0]]: bundle.entry, ...bundle.workers };
  for (const [module, file] of Object.entries(files)) {
    const key = entryVariable(module);
    if ((process.env[key] ?? "") === "") process.env[key] = file;
  }
}
