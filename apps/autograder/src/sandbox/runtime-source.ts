/**
 * Where the sandbox runtime comes from, in order: the file named by $TESSERA_SANDBOX_RUNTIME; a
 * `sandbox-runtime.cjs` beside this module (when the grader is a bundle, that is the bundle's
 * directory); else it is built from the workspace sources. Found or built once per process and
 * kept in memory: every submission's bundle includes the same text.
 */
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SANDBOX_RUNTIME_ENV, SANDBOX_RUNTIME_FILE, buildSandboxRuntime } from "./runtime-bundle.js";

export type SandboxRuntimeOrigin =
  | { readonly kind: "env"; readonly path: string }
  | { readonly kind: "beside"; readonly path: string }
  | { readonly kind: "built" };

export interface SandboxRuntime {
  /** The CommonJS text: `module.exports = { runHarness, ir, schedule }`. */
  readonly code: string;
  readonly origin: SandboxRuntimeOrigin;
}

export interface LocateOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where a prebuilt `sandbox-runtime.cjs` may lie (default: this module's directory). */
  readonly besideDir?: string;
  /** How to build it when there is no file (default: from the workspace sources). */
  readonly build?: () => Promise<string>;
}

const HERE = dirname(fileURLToPath(import.meta.url));

/** Finds (or builds) the runtime; throws an Error saying which file was wanted and why it failed. */
export async function locateSandboxRuntime(opts: LocateOptions = {}): Promise<SandboxRuntime> {
  const fromEnv = (opts.env ?? process.env)[SANDBOX_RUNTIME_ENV];
  if (fromEnv !== undefined && fromEnv !== "") {
    const code = await readRuntime(fromEnv, `$${SANDBOX_RUNTIME_ENV}`);
    if (code === undefined) throw new Error(`$${SANDBOX_RUNTIME_ENV} names ${fromEnv}, which does not exist`);
    return { code, origin: { kind: "env", path: fromEnv } };
  }
  const beside = join(opts.besideDir ?? HERE, SANDBOX_RUNTIME_FILE);
  const code = await readRuntime(beside, "the prebuilt sandbox runtime");
  if (code !== undefined) return { code, origin: { kind: "beside", path: beside } };
  return { code: await (opts.build ?? buildSandboxRuntime)(), origin: { kind: "built" } };
}

/** The file's text, or undefined when it does not exist. */
async function readRuntime(path: string, what: string): Promise<string | undefined> {
  let code: string;
  try {
    code = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot read ${what} ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!code.includes("runHarness")) throw new Error(`${what} ${path} is not a sandbox runtime (it has no runHarness); rebuild it with pnpm bundle:gpu`);
  return code;
}

let cached: Promise<SandboxRuntime> | undefined;

/** The process's runtime, located on first use; a failure is not cached, so a later call retries. */
export function sandboxRuntime(): Promise<SandboxRuntime> {
  if (cached === undefined) {
    const pending = locateSandboxRuntime();
    cached = pending;
    pending.catch(() => {
      if (cached === pending) cached = undefined;
    });
  }
  return cached;
}
