// @ts-check
/**
 * Builds an app's bundle: its entry and every workspace module it imports (the `@tessera/source`
 * TypeScript sources), in ESM chunks so that a lazily imported command loads only when it runs.
 * Loaded only when the bundle is missing or stale (it imports esbuild).
 *
 * The bundle behaves as the sources do under tsx:
 *   - packages from node_modules are not bundled: each import is left external and points at the
 *     very file Node would load for it (resolved from the importing source), so they load as
 *     they always do (their own files, their own __dirname, CommonJS as CommonJS);
 *   - `import.meta.url` (and `.dirname`, `.filename`) of each source is that source's own URL,
 *     so whatever a module finds beside itself (the runtime's native addon, a worker's `.ts`
 *     entry started with tsx, the sandbox's sources) it finds as it does under tsx; a source that
 *     uses `import.meta` otherwise fails the build, and the launcher falls back to tsx;
 *   - names are kept (`keepNames`): a class's or function's `.name` is its name in the source;
 *   - source maps point stack traces at the `.ts` files.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MANIFEST_FILE, MANIFEST_FORMAT, absentStamps, bundlePaths, stampAfterBuild, stampNow } from "./manifest.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));

/** Builds older than this (and not the current one) are removed after a build. */
const PRUNE_AFTER_MS = 60 * 60 * 1000;

/**
 * @typedef {{
 *   name: string,        // the entry's file name stem (`tessera` → tessera-<hash>.mjs)
 *   entry: string,       // absolute path of the TypeScript entry
 *   workers?: Record<string, string>, // worker threads' module names → absolute paths of their TypeScript entries
 *   root: string,        // the workspace root: lockfile, install record, tsconfig.base.json
 *   cacheDir: string,    // where the builds and manifest.json go
 * }} BuildOptions
 */

/** Builds the bundle and records it in `cacheDir/manifest.json`; returns the absolute paths of the entry and of each worker's output. */
export async function buildBundle(/** @type {BuildOptions} */ opts) {
  const esbuild = await import("esbuild");
  const workers = opts.workers ?? {};
  const started = Date.now();
  const outDir = join(opts.cacheDir, `${started.toString(36)}-${process.pid}`);
  mkdirSync(outDir, { recursive: true });
  /** @type {Map<string, [importer: string, specifier: string, file: string]>} */
  const externals = new Map();
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: opts.root,
      entryPoints: { [opts.name]: opts.entry, ...Object.fromEntries(Object.entries(workers).map(([m, source]) => [`worker-${m}`, source])) },
      outdir: outDir,
      entryNames: "[name]-[hash]",
      chunkNames: "chunk-[hash]",
      outExtension: { ".js": ".mjs" },
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      conditions: ["@tessera/source"],
      keepNames: true,
      sourcemap: "linked",
      sourcesContent: false,
      metafile: true,
      logLevel: "silent",
      plugins: [sourceSemantics(externals)],
    });
    // A warning is a difference from running the sources (e.g. an import of a name a module does
    // not export is undefined in a bundle, an error in Node): no bundle, tsx runs them as before.
    if (result.warnings.length > 0) throw Object.assign(new Error("esbuild warned"), { errors: result.warnings });
  } catch (err) {
    rmSync(outDir, { recursive: true, force: true });
    throw err;
  }
  const meta = result.metafile;
  const sources = Object.keys(meta.inputs).map((p) => resolve(opts.root, p));
  /** The output built from a source given as an entry point (esbuild names it relative to the root). */
  const outputOf = (/** @type {string} */ source) => {
    const output = Object.entries(meta.outputs).find(([, o]) => o.entryPoint !== undefined && resolve(opts.root, o.entryPoint) === source)?.[0];
    if (output === undefined) throw new Error(`esbuild reported no output for the entry ${source}`);
    return relative(outDir, resolve(opts.root, output));
  };
  const inputs = inputPaths(opts.root, sources, new Set([...externals.values()].map(([, , file]) => file)));
  const manifest = {
    format: MANIFEST_FORMAT,
    entry: outputOf(opts.entry),
    workers: Object.fromEntries(Object.entries(workers).map(([m, source]) => [m, [source, outputOf(source)]])),
    outDir,
    outputs: stampNow(Object.keys(meta.outputs).map((p) => resolve(opts.root, p))),
    inputs: [...stampAfterBuild(inputs.paths, started), ...absentStamps(inputs.absent)],
    externals: [...externals.values()].sort(),
    builtAt: new Date(started).toISOString(),
    buildMs: Date.now() - started,
  };
  const tmp = join(opts.cacheDir, `${MANIFEST_FILE}.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(manifest)}\n`);
  renameSync(tmp, join(opts.cacheDir, MANIFEST_FILE));
  prune(opts.cacheDir, outDir);
  return bundlePaths(manifest);
}

/** Everything whose change makes the bundle stale (see manifest.mjs): stamps, and the files that must not appear. */
function inputPaths(/** @type {string} */ root, /** @type {string[]} */ sources, /** @type {Set<string>} */ externals) {
  const paths = new Set(sources);
  /** @type {Set<string>} */
  const absent = new Set();
  /** @type {Set<string>} */
  const dirs = new Set();
  // The folders holding sources: a file added to one can change what `./x.js` resolves to.
  for (const source of sources) dirs.add(dirname(source));
  for (const dir of dirs) paths.add(dir);
  for (const dir of dirs) {
    // The package.json and the tsconfig.json that apply to its sources: the nearest ones, and
    // that no folder in between gains one (in a folder of sources, its own stamp says so).
    for (const name of ["package.json", "tsconfig.json"]) {
      for (let at = dir; isInside(root, at); at = dirname(at)) {
        const file = join(at, name);
        if (statSync(file, { throwIfNoEntry: false }) !== undefined) {
          paths.add(file);
          break;
        }
        if (!dirs.has(at)) absent.add(file);
      }
    }
  }
  for (const file of externals) paths.add(file);
  for (const file of [join(root, "tsconfig.base.json"), join(root, "pnpm-lock.yaml"), join(root, "node_modules", ".modules.yaml")]) {
    if (statSync(file, { throwIfNoEntry: false }) !== undefined) paths.add(file);
  }
  // The bundler itself, and the esbuild that built it.
  for (const name of readdirSync(HERE)) if (name.endsWith(".mjs")) paths.add(join(HERE, name));
  paths.add(createRequire(import.meta.url).resolve("esbuild/package.json"));
  return { paths, absent };
}

function isInside(/** @type {string} */ root, /** @type {string} */ path) {
  return path === root || path.startsWith(root + sep);
}

const IMPORT_META = /\bimport\.meta\b(\.(url|dirname|filename)\b)?/g;

/**
 * @param {Map<string, [string, string, string]>} externals collects the imports left external: importer, specifier, file
 * @returns {import("esbuild").Plugin}
 */
function sourceSemantics(externals) {
  return {
    name: "tessera-source-semantics",
    setup(build) {
      // A bare import other than a workspace package: external, at the file Node would load.
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === RESOLVING || args.path.startsWith("@tessera/")) return undefined;
        const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: RESOLVING });
        if (r.errors.length > 0) return { errors: r.errors };
        if (r.external || r.namespace !== "file") return r;
        externals.set(`${args.importer}\0${args.path}`, [args.importer, args.path, r.path]);
        return { path: r.path, external: true };
      });
      build.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        if (args.path.split(sep).includes("node_modules")) return undefined;
        const text = await readFile(args.path, "utf8");
        const url = pathToFileURL(args.path).href;
        /** @type {string[]} */
        const unsupported = [];
        const contents = text.replace(IMPORT_META, (all, _prop, name) => {
          if (name === "url") return JSON.stringify(url);
          if (name === "dirname") return JSON.stringify(dirname(args.path));
          if (name === "filename") return JSON.stringify(args.path);
          unsupported.push(all);
          return all;
        });
        if (unsupported.length > 0) {
          return {
            errors: [
              {
                text: `${relative(process.cwd(), args.path)} uses import.meta other than .url, .dirname or .filename, which a bundle cannot give it as the source has it`,
              },
            ],
          };
        }
        return { contents, loader: /\.[cm]?ts$/.test(args.path) ? "ts" : "js", resolveDir: dirname(args.path) };
      });
    },
  };
}

/** Marks esbuild's own resolution of a bare import (the plugin's onResolve lets it through). */
const RESOLVING = "tessera-fast-start:resolving";

/** Removes builds other than `keep` that are older than PRUNE_AFTER_MS (a running process may still load chunks of a recent one). */
function prune(/** @type {string} */ cacheDir, /** @type {string} */ keep) {
  const now = Date.now();
  for (const entry of readdirSync(cacheDir, { withFileTypes: true })) {
    const path = join(cacheDir, entry.name);
    if (path === keep || entry.name === MANIFEST_FILE) continue;
    const st = statSync(path, { throwIfNoEntry: false });
    if (st !== undefined && now - st.mtimeMs > PRUNE_AFTER_MS) rmSync(path, { recursive: true, force: true });
  }
}
