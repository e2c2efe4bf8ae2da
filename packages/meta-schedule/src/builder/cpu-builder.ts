/**
 * The builder of the CPU target (TVM's LocalBuilder with an `llvm` target): lowers each candidate
 * and generates its C (@tessera/codegen's C target), then compiles it to a shared library with
 * the system C compiler (@tessera/runtime's compileC: `-O3 -march=… -fopenmp`, cached on disk by
 * source hash). Compilations run in parallel, as many at once as there are cores; identical
 * sources of one builder compile once. A candidate that fails to lower or compile gets a failed
 * result — for a compile error, the compiler's message and the path of the generated file.
 */
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { type CTarget, buildC } from "@tessera/codegen";
import { type CompiledLibrary, compileC } from "@tessera/runtime";
import { errorText } from "../isolation/serve.js";
import type { BuilderInput, BuilderResult, BuiltArtifact } from "../interfaces/builder.js";

export interface CpuBuilderOptions {
  /** Compilations at once (default: the cores). */
  readonly maxParallel?: number;
  /**
   * Limit per compilation in seconds (TVM: 30 of wall time). Here it is the compiler's CPU time (RLIMIT_CPU):
   * on a loaded machine a compile of 1–2 CPU-seconds waited over 30 s for a core, and 25 of 64 candidates of a
   * 256³ tuning were rejected for it (docs/benchmarks/cpu-tuning.md, session 9). Wall time is limited to
   * `WALL_LIMIT_FACTOR` times this, as a backstop.
   */
  readonly timeoutSec?: number;
  /** Compile cache directory (default the runtime's, `$TESSERA_CACHE_DIR/c`). */
  readonly cacheDir?: string;
  /** The C compiler (default `$TESSERA_CC` or `cc`). */
  readonly compiler?: string;
}

/** A counting semaphore: at most `limit` tasks of `run` at once. */
class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(limit: number) {
    this.#free = limit;
  }
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#free === 0) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#free--;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next !== undefined) next();
      else this.#free++;
    }
  }
}

/** The wall-clock backstop of a compilation, in multiples of its CPU-time budget. */
export const WALL_LIMIT_FACTOR = 20;

export class CpuBuilder {
  readonly name = "CpuBuilder";
  readonly timeoutMs: number;
  readonly #cpuLimitSec: number;
  readonly #opts: CpuBuilderOptions;
  readonly #slots: Slots;
  readonly #inFlight = new Map<string, Promise<CompiledLibrary>>();

  constructor(opts: CpuBuilderOptions = {}) {
    this.#opts = opts;
    const parallel = opts.maxParallel ?? availableParallelism();
    if (!Number.isInteger(parallel) || parallel < 1) throw new RangeError(`CpuBuilder: maxParallel must be a positive integer, got ${parallel}`);
    const timeoutSec = opts.timeoutSec ?? 30;
    if (!(timeoutSec > 0)) throw new RangeError(`CpuBuilder: timeoutSec must be positive, got ${timeoutSec}`);
    this.#cpuLimitSec = Math.max(1, Math.ceil(timeoutSec));
    this.timeoutMs = timeoutSec * 1000 * WALL_LIMIT_FACTOR;
    this.#slots = new Slots(parallel);
  }

  build(inputs: readonly BuilderInput[]): Promise<BuilderResult[]> {
    return Promise.all(inputs.map((input) => this.buildOne(input)));
  }

  /** One candidate for a CPU target; `buildMs` counts from the call (queueing included). */
  async buildOne(input: BuilderInput): Promise<BuilderResult> {
    const t0 = performance.now();
    const elapsed = (): number => performance.now() - t0;
    if (input.target.kind !== "c") return { ok: false, error: `CpuBuilder: the target ${input.target.name} is not a CPU target`, buildMs: 0 };
    const target: CTarget = input.target;
    let generated: ReturnType<typeof buildC>;
    try {
      generated = buildC(input.func, target);
    } catch (err) {
      return { ok: false, error: errorText(err), buildMs: elapsed() };
    }
    try {
      const compiled = await this.#compile(generated.source, target.march, generated.name);
      const artifact: BuiltArtifact = {
        name: generated.name,
        source: generated.source,
        kernels: [],
        host: {
          libraryPath: compiled.path,
          sourcePath: compiled.sourcePath,
          packedSymbol: generated.packedSymbol,
          ...(generated.releaseSymbol === undefined ? {} : { releaseSymbol: generated.releaseSymbol }),
          params: generated.params.map((p) =>
            p.kind === "buffer" ? { kind: p.kind, name: p.name, dtype: p.dtype, elements: p.elements } : { kind: p.kind, name: p.name, dtype: p.dtype },
          ),
        },
      };
      return { ok: true, artifact, buildMs: elapsed() };
    } catch (err) {
      return { ok: false, error: errorText(err), buildMs: elapsed() };
    }
  }

  #compile(source: string, march: string, name: string): Promise<CompiledLibrary> {
    const key = `${march}\0${source}`;
    const known = this.#inFlight.get(key);
    if (known !== undefined) return known;
    const compiling = this.#slots.run(() =>
      withTimeout(
        compileC(source, {
          march,
          name,
          cpuTimeLimitSec: this.#cpuLimitSec,
          ...(this.#opts.cacheDir === undefined ? {} : { cacheDir: this.#opts.cacheDir }),
          ...(this.#opts.compiler === undefined ? {} : { compiler: this.#opts.compiler }),
        }),
        this.timeoutMs,
      ),
    );
    // A failed compile may succeed later (a transient error): forget it.
    compiling.catch(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, compiling);
    return compiling;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the C compilation timed out after ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
