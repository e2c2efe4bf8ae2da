// @ts-check
/**
 * Runs a TypeScript entry of the workspace in this process: from its bundle when the bundle is
 * fresh, after rebuilding it when a source changed (or there is none yet), and through tsx's
 * loader (as `node --import tsx` would) when the caller asks for it, when TESSERA_FAST_START=0,
 * or when the bundle cannot be built (a syntax error, an unresolvable import, a read-only cache):
 * tsx then reports what is wrong as it always did, at the moment the broken module loads.
 *
 * Start this process with `--conditions=@tessera/source` (the root scripts do): tsx's loader, and
 * any child that inherits the flag, resolve the workspace packages to their sources as before.
 *
 * TESSERA_FAST_START_LOG=1 says on stderr which way each start went and why.
 */
import { pathToFileURL } from "node:url";
import { checkFresh } from "./manifest.mjs";

/**
 * @param {{
 *   name: string,          // the app's name (the bundle's file name, the log's prefix)
 *   entry: string,         // absolute path of the TypeScript entry
 *   workers?: Record<string, string>, // worker threads' module names → absolute paths of their TypeScript entries
 *   root: string,          // the workspace root
 *   cacheDir: string,      // the app's cache folder
 *   args: readonly string[],
 *   tsx?: string | undefined, // a reason to run through tsx, if there is one
 * }} opts
 */
export async function launch(opts) {
  // What the entry sees, as under `node --import tsx ENTRY ARGS…`.
  process.argv = [process.argv[0] ?? process.execPath, opts.entry, ...opts.args];
  const log = process.env.TESSERA_FAST_START_LOG === "1" ? (/** @type {string} */ m) => process.stderr.write(`fast-start: ${opts.name}: ${m}\n`) : () => {};
  const viaTsx = opts.tsx ?? (process.env.TESSERA_FAST_START === "0" ? "TESSERA_FAST_START=0" : undefined);
  if (viaTsx !== undefined) return runWithTsx(opts.entry, viaTsx, log);

  let bundle;
  const workers = opts.workers ?? {};
  const fresh = checkFresh(opts.cacheDir, workers);
  if (fresh.fresh) {
    bundle = fresh;
    log(`fresh bundle ${bundle.entry}`);
  } else {
    try {
      const started = performance.now();
      const { buildBundle } = await import("./build.mjs");
      bundle = await buildBundle({ name: opts.name, entry: opts.entry, workers, root: opts.root, cacheDir: opts.cacheDir });
      log(`rebuilt in ${Math.round(performance.now() - started)} ms (${fresh.why}): ${bundle.entry}`);
    } catch (err) {
      return runWithTsx(opts.entry, `the bundle could not be built (${fresh.why}): ${describe(err)}`, log);
    }
  }
  // Worker threads start from their entries in this bundle (meta-schedule's entry-point.ts reads
  // these variables), unless the user named a file already.
  for (const [module, file] of Object.entries(bundle.workers)) {
    const key = `TESSERA_WORKER_ENTRY_${module.toUpperCase().replace(/-/g, "_")}`;
    if ((process.env[key] ?? "") === "") process.env[key] = file;
  }
  // Stack traces name the .ts sources, as under tsx.
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(bundle.entry).href);
}

async function runWithTsx(/** @type {string} */ entry, /** @type {string} */ why, /** @type {(m: string) => void} */ log) {
  log(`through tsx: ${why}`);
  // @ts-expect-error: tsx's loader has no types; importing it registers its hooks.
  await import("tsx");
  await import(pathToFileURL(entry).href);
}

function describe(/** @type {unknown} */ err) {
  const errors = /** @type {{ errors?: { text: string, location?: { file: string, line: number } | null }[] }} */ (err).errors;
  if (Array.isArray(errors) && errors.length > 0)
    return errors.map((e) => (e.location ? `${e.location.file}:${e.location.line}: ${e.text}` : e.text)).join("; ");
  return err instanceof Error ? err.message : String(err);
}
