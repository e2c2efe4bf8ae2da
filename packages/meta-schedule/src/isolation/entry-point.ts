/**
 * Where a worker's code is, in each way Tessera runs:
 *   - from TypeScript sources (tests, `pnpm tessera` through tsx): the `.ts` file beside the
 *     caller, started with tsx's loader and the `@tessera/source` condition;
 *   - from the GPU bundle (apps/autograder/scripts/bundle-gpu.ts): every entry is one `.mjs`
 *     beside the bundle that runs, so the worker is `<bundleName>.mjs` in the caller's folder;
 *   - from the compiled package (dist/): the `.js` file beside the caller.
 * `TESSERA_WORKER_ENTRY_<NAME>` (NAME upper-cased, `-` as `_`) overrides the file for any of them.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface EntryPoint {
  readonly url: URL;
  /** A TypeScript source: it runs with tsx's loader and the `@tessera/source` condition. */
  readonly typeScript: boolean;
}

export interface EntryNames {
  /** The worker's module name beside the caller, without extension (`build-worker`). */
  readonly module: string;
  /** Its file name in the GPU bundle (`ms-build-worker.mjs`). */
  readonly bundle: string;
}

function envOverride(names: EntryNames): string | undefined {
  const key = `TESSERA_WORKER_ENTRY_${names.module.toUpperCase().replace(/-/g, "_")}`;
  const value = process.env[key];
  return value !== undefined && value.length > 0 ? value : undefined;
}

const SOURCE_CONDITION = "--conditions=@tessera/source";

/** Node options of a child process that runs TypeScript sources: tsx's loader, the source condition. */
export function typeScriptExecArgv(): string[] {
  const loader = createRequire(import.meta.url).resolve("tsx");
  return ["--import", pathToFileURL(loader).href, SOURCE_CONDITION];
}

/** The ESM build of `tsx/esm/api` (require() resolution would give its CommonJS build). */
function tsxEsmApi(): string {
  const manifestPath = createRequire(import.meta.url).resolve("tsx/package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { exports?: Record<string, { import?: { default?: string } }> };
  const file = manifest.exports?.["./esm/api"]?.import?.default;
  if (file === undefined) throw new Error(`tsx at ${manifestPath} has no ESM export "./esm/api"; cannot run TypeScript worker threads`);
  return new URL(file, pathToFileURL(manifestPath)).href;
}

/**
 * A worker thread does not apply `--import` loaders from its execArgv (Node 20), so a thread that
 * runs TypeScript starts from this module, which registers tsx's hooks and then imports the entry
 * (`workerData.entry`).
 */
export function typeScriptThreadBootstrap(): { url: URL; execArgv: string[] } {
  const code = `import { workerData } from "node:worker_threads"; import { register } from ${JSON.stringify(tsxEsmApi())}; register(); await import(workerData.entry);`;
  return { url: new URL(`data:text/javascript,${encodeURIComponent(code)}`), execArgv: [SOURCE_CONDITION] };
}

/** Whether a module path or file URL names a TypeScript source (it needs tsx's loader). */
export function isTypeScript(path: string): boolean {
  return /\.[cm]?ts$/.test(path);
}

function entryAt(url: URL): EntryPoint {
  return { url, typeScript: isTypeScript(url.pathname) };
}

/** The entry of worker `names` for a caller whose module URL is `callerUrl` (its `import.meta.url`). */
export function resolveEntryPoint(callerUrl: string, names: EntryNames): EntryPoint {
  const override = envOverride(names);
  if (override !== undefined) return entryAt(override.startsWith("file:") ? new URL(override) : pathToFileURL(override));
  const candidates = isTypeScript(fileURLToPath(callerUrl)) ? [`./${names.module}.ts`] : [`./${names.bundle}`, `./${names.module}.js`];
  for (const relative of candidates) {
    const url = new URL(relative, callerUrl);
    if (existsSync(url)) return entryAt(url);
  }
  throw new Error(
    `the worker entry ${names.module} was not found beside ${fileURLToPath(callerUrl)} (looked for ${candidates.join(", ")}); ` +
      `in a bundle, add it to apps/autograder/scripts/bundle-gpu.ts as ${names.bundle}, or set TESSERA_WORKER_ENTRY_${names.module.toUpperCase().replace(/-/g, "_")}`,
  );
}
