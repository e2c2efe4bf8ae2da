/**
 * Where the sandbox runtime comes from, in order: the file named by $TESSERA_SANDBOX_RUNTIME; a
 * `sandbox-runtime.cjs` beside this module (when the grader is a bundle, that is the bundle's
 * directory); else it is built from the workspace sources (a build kept on disk while its sources
 * are unchanged, see build-cache.ts). Found or built once per process and kept in memory: every
 * submission's bundle includes the same text.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cachedBuild } from "./build-cache.js";
import { SANDBOX_HOST_FILE, SANDBOX_RUNTIME_ENV, SANDBOX_RUNTIME_FILE, buildSandboxHostWithInputs, buildSandboxRuntimeWithInputs } from "./runtime-bundle.js";

export type SandboxRuntimeOrigin =
  | { readonly kind: "env"; readonly path: string }
  | { readonly kind: "beside"; readonly path: string }
  | { readonly kind: "built" };

export interface SandboxRuntime {
  /** The CommonJS text: `module.exports = { createHarness, ir, schedule }`. */
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

/**
 * Where builds from the sources are kept between processes (see build-cache.ts): the cache folder
 * of the nearest node_modules above this module; none outside a workspace.
 */
const BUILD_CACHE_DIR = nearestNodeModules(HERE, "tessera-sandbox");

function nearestNodeModules(from: string, name: string): string | undefined {
  for (let at = from; ; at = dirname(at)) {
    if (existsSync(join(at, "node_modules"))) return join(at, "node_modules", ".cache", name);
    if (dirname(at) === at) return undefined;
  }
}

/** Finds (or builds) the runtime; throws an Error saying which file was wanted and why it failed. */
export async function locateSandboxRuntime(opts: LocateOptions = {}): Promise<SandboxRuntime> {
  const fromEnv = (opts.env ?? process.env)[SANDBOX_RUNTIME_ENV];
  if (fromEnv !== undefined && fromEnv !== "") {
    const code = await readPrebuilt(fromEnv, `$${SANDBOX_RUNTIME_ENV}`, RUNTIME_MARK);
    if (code === undefined) throw new Error(`$${SANDBOX_RUNTIME_ENV} names ${fromEnv}, which does not exist`);
    return { code, origin: { kind: "env", path: fromEnv } };
  }
  const beside = join(opts.besideDir ?? HERE, SANDBOX_RUNTIME_FILE);
  const code = await readPrebuilt(beside, "the prebuilt sandbox runtime", RUNTIME_MARK);
  if (code !== undefined) return { code, origin: { kind: "beside", path: beside } };
  return { code: await (opts.build ?? (() => cachedBuild("sandbox-runtime", BUILD_CACHE_DIR, buildSandboxRuntimeWithInputs)))(), origin: { kind: "built" } };
}

interface Mark {
  /** Text every genuine file holds. */
  readonly text: string;
  readonly kind: string;
}

const RUNTIME_MARK: Mark = { text: "createHarness", kind: "sandbox runtime" };
const HOST_MARK: Mark = { text: "isolatedVm", kind: "sandbox host" };

/** The file's text, or undefined when it does not exist. */
async function readPrebuilt(path: string, what: string, mark: Mark): Promise<string | undefined> {
  let code: string;
  try {
    code = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot read ${what} ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!code.includes(mark.text)) throw new Error(`${what} ${path} is not a ${mark.kind} (it has no ${mark.text}); rebuild it with pnpm bundle:gpu`);
  return code;
}

/** The sandbox host's program (host/host.ts as one CommonJS file): prebuilt beside this module, else built. */
export async function locateSandboxHost(opts: Pick<LocateOptions, "besideDir" | "build"> = {}): Promise<string> {
  const beside = join(opts.besideDir ?? HERE, SANDBOX_HOST_FILE);
  return (
    (await readPrebuilt(beside, "the prebuilt sandbox host", HOST_MARK)) ??
    (await (opts.build ?? (() => cachedBuild("sandbox-host", BUILD_CACHE_DIR, buildSandboxHostWithInputs)))())
  );
}

/** Memoizes a lookup for the process; a failure is not kept, so a later call retries. */
function once<T>(lookup: () => Promise<T>): () => Promise<T> {
  let cached: Promise<T> | undefined;
  return () => {
    if (cached === undefined) {
      const pending = lookup();
      cached = pending;
      pending.catch(() => {
        if (cached === pending) cached = undefined;
      });
    }
    return cached;
  };
}

/** The process's runtime, located on first use. */
export const sandboxRuntime: () => Promise<SandboxRuntime> = once(() => locateSandboxRuntime());

/** The process's sandbox host program, located on first use. */
export const sandboxHost: () => Promise<string> = once(() => locateSandboxHost());
