// @ts-check
/**
 * The record of one bundle (manifest.json in the app's cache folder) and the check that it is
 * still fresh. This module is on every start's path: it imports only node:fs and node:path, and
 * the check is one stat per input (a few hundred files and folders: a few milliseconds).
 *
 * A bundle is fresh when every input it recorded still has the size and modification time it
 * had when the bundle was built, and every output file is still there. The inputs are the source
 * files esbuild read (its metafile), the folders holding them (a file added or removed there can
 * change what a relative import resolves to), the package.json and tsconfig.json files that decide how
 * those sources resolve and compile, the files of the packages left external (node_modules), the
 * lockfile and pnpm's install record, and the bundler's own files; and, where a folder above a
 * source has no package.json or tsconfig.json, that it still has none. An input that was modified
 * close to or after the moment the build started is recorded as unknown: the build may have read
 * it before that edit, so the next start rebuilds.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Bumped when the manifest's shape or the build's meaning changes. */
export const MANIFEST_FORMAT = 2;

/**
 * @typedef {[path: string, mtimeMs: number, size: number]} InputStamp
 * @typedef {{
 *   format: number,
 *   entry: string,
 *   workers: Record<string, [source: string, output: string]>,
 *   outDir: string,
 *   outputs: InputStamp[],
 *   inputs: InputStamp[],
 *   externals: [importer: string, specifier: string, file: string][],
 *   builtAt: string,
 *   buildMs: number,
 * }} Manifest
 */

export const MANIFEST_FILE = "manifest.json";

/** The manifest in `cacheDir`, or undefined when there is none or it cannot be read. */
export function readManifest(/** @type {string} */ cacheDir) {
  let text;
  try {
    text = readFileSync(join(cacheDir, MANIFEST_FILE), "utf8");
  } catch {
    return undefined;
  }
  try {
    const m = JSON.parse(text);
    return m !== null && typeof m === "object" && m.format === MANIFEST_FORMAT ? /** @type {Manifest} */ (m) : undefined;
  } catch {
    return undefined;
  }
}

/** An input's stamp: the file must not exist (a package.json or tsconfig.json that would change how sources compile). */
export const ABSENT = -2;
/** An input's stamp: its state at build time is unknown (the next start rebuilds). */
export const UNKNOWN = -1;

/** The first stamp that no longer matches the file (why the bundle is stale), or undefined. */
export function changedStamp(/** @type {readonly InputStamp[]} */ stamps) {
  for (const stamp of stamps) {
    const [path, mtimeMs, size] = stamp;
    if (mtimeMs === UNKNOWN) return { path, why: "was modified during the last build" };
    const st = statSync(path, { throwIfNoEntry: false });
    if (mtimeMs === ABSENT) {
      if (st !== undefined) return { path, why: "appeared" };
      continue;
    }
    if (st === undefined) return { path, why: "is gone" };
    if (st.mtimeMs !== mtimeMs || st.size !== size) return { path, why: "changed" };
  }
  return undefined;
}

/**
 * Whether the bundle recorded in `cacheDir`, built for the worker entries `workers` (module name →
 * TypeScript source), can run: `{ fresh: true, entry, workers }` with absolute paths of the entry
 * and of each worker's output, or `{ fresh: false, why }`.
 * @returns {{ fresh: true, entry: string, workers: Record<string, string> } | { fresh: false, why: string }}
 */
export function checkFresh(/** @type {string} */ cacheDir, /** @type {Record<string, string>} */ workers = {}) {
  const manifest = readManifest(cacheDir);
  if (manifest === undefined) return { fresh: false, why: "no bundle yet" };
  const built = manifest.workers ?? {};
  const sameWorkers = Object.keys(workers).length === Object.keys(built).length && Object.entries(workers).every(([m, source]) => built[m]?.[0] === source);
  if (!sameWorkers) return { fresh: false, why: "the app's worker entries changed" };
  const changed = changedStamp(manifest.outputs) ?? changedStamp(manifest.inputs);
  if (changed !== undefined) return { fresh: false, why: `${changed.path} ${changed.why}` };
  return { fresh: true, ...bundlePaths(manifest) };
}

/** The absolute paths of a built bundle's entry and of its workers' outputs. */
export function bundlePaths(/** @type {Manifest} */ manifest) {
  return {
    entry: join(manifest.outDir, manifest.entry),
    workers: Object.fromEntries(Object.entries(manifest.workers ?? {}).map(([m, [, output]]) => [m, join(manifest.outDir, output)])),
  };
}

/**
 * Stamps of `paths` taken after a build that started at `startedMs`: a path missing now, or
 * modified after (or just before: file times are coarse) the start, is stamped -1 (unknown).
 */
export function stampAfterBuild(/** @type {Iterable<string>} */ paths, /** @type {number} */ startedMs) {
  /** @type {InputStamp[]} */
  const out = [];
  for (const path of paths) {
    const st = statSync(path, { throwIfNoEntry: false });
    if (st === undefined) {
      out.push([path, UNKNOWN, 0]);
      continue;
    }
    // Whole-second times (a coarse file system) need a wider margin than nanosecond ones.
    const margin = st.mtimeMs % 1000 === 0 ? 2000 : 100;
    out.push([path, st.mtimeMs > startedMs - margin ? UNKNOWN : st.mtimeMs, st.size]);
  }
  return out;
}

/** Stamps of files that must not exist. */
export function absentStamps(/** @type {Iterable<string>} */ paths) {
  /** @type {InputStamp[]} */
  const out = [];
  for (const path of paths) out.push([path, ABSENT, 0]);
  return out;
}

/** Stamps of files as they are now (the build's outputs). */
export function stampNow(/** @type {Iterable<string>} */ paths) {
  /** @type {InputStamp[]} */
  const out = [];
  for (const path of paths) {
    const st = statSync(path);
    out.push([path, st.mtimeMs, st.size]);
  }
  return out;
}
