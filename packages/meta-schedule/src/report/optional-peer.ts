/**
 * Loading the report's optional peer dependencies (vega, vega-lite, @resvg/resvg-js, cli-progress)
 * only when a chart or a bar is drawn, with an error that says what to install when one is missing.
 */
import { createRequire } from "node:module";
import { MissingPeerDependencyError } from "../errors.js";

const MODULE_NOT_FOUND = new Set(["ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND"]);

function isModuleNotFound(err: unknown): boolean {
  return err instanceof Error && MODULE_NOT_FOUND.has((err as { code?: unknown }).code as string);
}

/** `load()`'s modules, or a MissingPeerDependencyError naming `packages` when one is not installed. */
export async function importOptionalPeer<T>(load: () => Promise<T>, packages: readonly string[], purpose: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isModuleNotFound(err)) throw new MissingPeerDependencyError(packages, purpose);
    throw err;
  }
}

/** The CommonJS package `id`, loaded synchronously, or a MissingPeerDependencyError when it is not installed. */
export function requireOptionalPeer<T>(id: string, purpose: string, require: (id: string) => unknown = createRequire(import.meta.url)): T {
  try {
    return require(id) as T;
  } catch (err) {
    if (isModuleNotFound(err)) throw new MissingPeerDependencyError([id], purpose);
    throw err;
  }
}
