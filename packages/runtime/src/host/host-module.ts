/**
 * A function compiled for a C target and loaded into this process: callable on host
 * TypedArrays (Float32Array for float32, …; numbers for scalars), with a TVM-style
 * `timeEvaluator` whose batches run in native code (no JavaScript between runs).
 *
 *   const mod = await build(sch, "c");
 *   mod(A, B, C);
 *   const t = await mod.timeEvaluator({ number: 10, repeat: 5 })(A, B, C);
 */
import { type CModule, type CParam, type CTarget, buildC, cTarget } from "@tessera/codegen";
import { type PrimFunc, type TypedArray, typedArrayConstructorFor } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { checkHostArguments, type ParamSpec } from "../module-args/arguments.js";
import { BuildError, ModuleArgumentError } from "../module-args/errors.js";
import { loadNative, type NativeHostLibrary } from "../native.js";
import { type TimeEvaluatorOptions, type TimingResult, timeEvaluator } from "../timer.js";
import { type CompiledLibrary, compileC } from "./compiler.js";
import { HostBackendUnavailableError } from "./errors.js";

export interface HostBuildOptions {
  /** Cache directory for compiled libraries (default `defaultCCacheDir()`). */
  readonly cacheDir?: string;
  /** The C compiler command (default `$TESSERA_CC` or `cc`). */
  readonly compiler?: string;
}

export interface HostTiming extends TimingResult {
  /** Wall-clock time of the native calls on the host. */
  readonly clock: "host-steady-clock";
  readonly device: "host";
}

export interface HostModule {
  /** Runs the function once, synchronously, on the given arrays. */
  (...args: unknown[]): void;
  readonly device: "host";
  readonly name: string;
  readonly target: CTarget;
  /** The generated C. */
  readonly source: string;
  readonly generated: CModule;
  readonly params: readonly ParamSpec[];
  readonly compiled: CompiledLibrary;
  timeEvaluator(options?: TimeEvaluatorOptions): (...args: unknown[]) => Promise<HostTiming>;
  /** Frees the heap workspaces this thread's calls kept, then closes the library (dlclose). Idempotent; the module cannot be called afterwards. */
  dispose(): void;
  readonly disposed: boolean;
}

export type HostBuildInput = PrimFunc | Schedule | CModule;

function isCModule(x: HostBuildInput): x is CModule {
  return typeof x === "object" && x !== null && "packedSymbol" in x && "source" in x;
}

/** Generates C (unless given a CModule), compiles it with the system C compiler and loads it. */
export async function buildHost(input: HostBuildInput, target: CTarget | string = "c", opts: HostBuildOptions = {}): Promise<HostModule> {
  const t = cTarget(target, "buildHost");
  const generated = isCModule(input) ? input : buildC(input, t);
  const native = loadNative();
  if (!native.ok) throw new HostBackendUnavailableError(`the C target needs the native addon to load compiled code: ${native.reason}`);
  if (native.addon.HostLibrary === undefined) {
    throw new HostBackendUnavailableError("the native addon predates HostLibrary: rebuild it (pnpm --filter @tessera/runtime build:native)");
  }
  const compiled = await compileC(generated.source, {
    march: generated.target.march,
    name: generated.name,
    ...(opts.cacheDir === undefined ? {} : { cacheDir: opts.cacheDir }),
    ...(opts.compiler === undefined ? {} : { compiler: opts.compiler }),
  });
  return makeHostModule(generated, compiled, openHostLibrary(compiled.path));
}

/**
 * Loads a library compiled from generated C (dlopen), for a process that has only the file — a
 * tuning runner's child process measuring a candidate another process built.
 */
export function openHostLibrary(path: string): NativeHostLibrary {
  const native = loadNative();
  if (!native.ok) throw new HostBackendUnavailableError(`the C target needs the native addon to load compiled code: ${native.reason}`);
  if (native.addon.HostLibrary === undefined) {
    throw new HostBackendUnavailableError("the native addon predates HostLibrary: rebuild it (pnpm --filter @tessera/runtime build:native)");
  }
  // libgomp reads its settings once, when the first OpenMP library is loaded. By default its idle
  // workers spin, which on a machine shared with other work (CI, a busy laptop) takes the cores
  // the working threads need: a 256³ matmul measured 60× slower. Passive waiting unless the user chose.
  if (process.env.OMP_WAIT_POLICY === undefined) process.env.OMP_WAIT_POLICY = "passive";
  return new native.addon.HostLibrary(path);
}

/** Specs in the runtime's argument format, so argument errors read as for the other devices. */
function toSpecs(params: readonly CParam[]): ParamSpec[] {
  return params.map((p, index) => (p.kind === "buffer" ? { ...p, index, shape: [...p.shape] } : { ...p, index }));
}

/** One pointer per parameter: the array itself for buffers, a one-element array for scalars. */
function packArguments(name: string, specs: readonly ParamSpec[], args: readonly unknown[]): ArrayBufferView[] {
  const checked = checkHostArguments(name, specs, args);
  const packed = checked.map((v, i): ArrayBufferView => {
    if (typeof v !== "number") return v;
    const spec = specs[i]!;
    const Ctor = typedArrayConstructorFor(spec.dtype as Parameters<typeof typedArrayConstructorFor>[0]);
    const cell = new Ctor(1) as TypedArray;
    if (cell instanceof BigInt64Array || cell instanceof BigUint64Array) (cell as BigInt64Array)[0] = BigInt(Math.trunc(v));
    else (cell as Float64Array)[0] = v;
    return cell;
  });
  checkNoOverlap(name, specs, packed);
  return packed;
}

/** The C function's buffer parameters are `restrict`: two arguments may not share memory. */
function checkNoOverlap(name: string, specs: readonly ParamSpec[], views: readonly ArrayBufferView[]): void {
  for (let i = 0; i < views.length; i++) {
    for (let j = i + 1; j < views.length; j++) {
      const a = views[i]!;
      const b = views[j]!;
      if (a.buffer !== b.buffer) continue;
      if (a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength) {
        throw new ModuleArgumentError(
          `${name}: arguments ${i} (${specs[i]!.name}) and ${j} (${specs[j]!.name}) share memory; the compiled function assumes its buffers do not alias`,
          name,
          j,
        );
      }
    }
  }
}

function makeHostModule(generated: CModule, compiled: CompiledLibrary, library: NativeHostLibrary): HostModule {
  const specs = toSpecs(generated.params);
  let disposed = false;
  const live = (what: string): NativeHostLibrary => {
    if (disposed) throw new BuildError(`${generated.name}.${what}: the module was disposed`);
    return library;
  };
  const call = (...args: unknown[]): void => {
    const lib = live("call");
    const status = lib.call(generated.packedSymbol, packArguments(generated.name, specs, args));
    if (status !== 0) throw new BuildError(`${generated.name}: the compiled function returned status ${status} (a heap allocation failed)`);
  };
  const members = {
    device: "host" as const,
    target: generated.target,
    source: generated.source,
    generated,
    params: specs,
    compiled,
    timeEvaluator:
      (options: TimeEvaluatorOptions = {}) =>
      async (...args: unknown[]): Promise<HostTiming> => {
        const lib = live("timeEvaluator");
        const packed = packArguments(generated.name, specs, args);
        const timing = await timeEvaluator(
          {
            warmup: () => void lib.call(generated.packedSymbol, packed),
            timeBatch: (number) => lib.timeCalls(generated.packedSymbol, packed, number),
          },
          options,
        );
        return { ...timing, clock: "host-steady-clock", device: "host" };
      },
    dispose: (): void => {
      if (disposed) return;
      disposed = true;
      if (generated.releaseSymbol !== undefined) library.call(generated.releaseSymbol, []);
      library.close();
    },
  };
  const mod = Object.assign(call, members);
  Object.defineProperties(mod, {
    name: { value: generated.name, enumerable: true },
    disposed: { get: () => disposed, enumerable: true },
  });
  return mod as unknown as HostModule;
}
