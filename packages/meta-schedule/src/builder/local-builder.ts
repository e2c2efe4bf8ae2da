/**
 * TVM's `LocalBuilder`: lowers and generates code in worker threads and compiles it (NVRTC, nvcc or, for
 * CPU targets, the C compiler); a failing or slow candidate gets a failed result.
 */
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import type { CudaTarget } from "@tessera/codegen";
import { resolveEntryPoint, type EntryPoint } from "../isolation/entry-point.js";
import { errorText } from "../isolation/serve.js";
import { TaskPool, type TaskOutcome } from "../isolation/task-pool.js";
import type { Logger } from "../tune-context.js";
import type { Builder, BuilderInput, BuilderResult, BuiltArtifact } from "../interfaces/builder.js";
import { CompileStep, type CompileMode, resolveCompileMode } from "./compile-step.js";
import { CpuBuilder, type CpuBuilderOptions } from "./cpu-builder.js";
import { type GenerateTask, type GeneratedArtifact, lowerAndGenerate } from "./lower-and-generate.js";
import { threadPoolWarning } from "./uv-threadpool.js";

export interface LocalBuilderOptions {
  /** Worker threads that lower and generate code; 0 lowers in the caller's thread. Default: the cores, at most 8. */
  readonly maxWorkers?: number;
  /** Limit per candidate, for lowering + generation and again for compilation (TVM: 30 s). */
  readonly timeoutSec?: number;
  /** `auto` (default): compile for the local GPU where CUDA is available, else do not compile. */
  readonly compile?: CompileMode | "auto";
  /** Compile cache directory, or false for none; default the runtime's. */
  readonly cacheDir?: string | false;
  /** The GPU whose architecture `compile: "device"` compiles for (default 0). */
  readonly deviceOrdinal?: number;
  /** Keep the lowered module in the artifact (the simulated runner needs it); default true. */
  readonly keepLowered?: boolean;
  /** The worker's code, when not the default `build-worker` beside this module (see entry-point.ts). */
  readonly workerEntry?: EntryPoint;
  readonly log?: Logger;
  /** Options of the builder of CPU-target candidates. */
  readonly cpu?: CpuBuilderOptions;
}

/** The default worker entry, resolved for sources, the GPU bundle (ms-build-worker.mjs) or dist. */
export function buildWorkerEntry(): EntryPoint {
  return resolveEntryPoint(import.meta.url, { module: "build-worker", bundle: "ms-build-worker.mjs" });
}

export const DEFAULT_BUILD_TIMEOUT_SEC = 30;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function checkInput(input: BuilderInput, index: number): string | undefined {
  const func = input?.func as { kind?: unknown } | undefined;
  if (func?.kind !== "PrimFunc")
    return `LocalBuilder: input ${index} has no PrimFunc (func is ${func === undefined ? "missing" : `a ${String(func.kind ?? typeof func)}`})`;
  const target = input.target as Partial<CudaTarget> | undefined;
  if (typeof target?.arch !== "string" || target.kind !== "cuda")
    return `LocalBuilder: input ${index} has no CUDA target (resolve it with target("nvidia/h100"))`;
  return undefined;
}

export class LocalBuilder implements Builder {
  readonly name = "LocalBuilder";
  readonly timeoutMs: number;
  readonly compileMode: CompileMode;
  readonly #opts: LocalBuilderOptions;
  readonly #compile: CompileStep;
  readonly #workers: number;
  readonly #entry: EntryPoint | undefined;
  #pool: TaskPool<GenerateTask, GeneratedArtifact> | undefined;
  /** Workers of pools disposed before the current one. */
  #spawnedBefore = 0;
  #warned = false;
  #cpu: CpuBuilder | undefined;

  constructor(opts: LocalBuilderOptions = {}) {
    this.#opts = opts;
    const timeoutSec = opts.timeoutSec ?? DEFAULT_BUILD_TIMEOUT_SEC;
    if (!(timeoutSec > 0)) throw new RangeError(`LocalBuilder: timeoutSec must be positive, got ${timeoutSec}`);
    this.timeoutMs = timeoutSec * 1000;
    const workers = opts.maxWorkers ?? Math.min(8, availableParallelism());
    if (!Number.isInteger(workers) || workers < 0) throw new RangeError(`LocalBuilder: maxWorkers must be a non-negative integer, got ${workers}`);
    this.compileMode = resolveCompileMode(opts.compile ?? "auto");
    this.#compile = new CompileStep({
      mode: this.compileMode,
      ...(opts.cacheDir === undefined ? {} : { cacheDir: opts.cacheDir }),
      ...(opts.deviceOrdinal === undefined ? {} : { deviceOrdinal: opts.deviceOrdinal }),
    });
    this.#workers = workers;
    // Resolved now, so that a missing worker entry is reported at construction.
    this.#entry = workers > 0 ? (opts.workerEntry ?? buildWorkerEntry()) : undefined;
  }

  /** Worker threads started so far (0 before the first build, and when lowering in-process). */
  get workersStarted(): number {
    return this.#spawnedBefore + (this.#pool?.spawned ?? 0);
  }

  #workerPool(): TaskPool<GenerateTask, GeneratedArtifact> | undefined {
    if (this.#entry === undefined) return undefined;
    this.#pool ??= new TaskPool({ kind: "thread", entry: this.#entry, size: this.#workers });
    return this.#pool;
  }

  /** One result per input, in order; `buildMs` is each candidate's wall time from the start of the batch (queueing included). */
  async build(inputs: readonly BuilderInput[]): Promise<BuilderResult[]> {
    this.#warnAboutThreadPool(inputs.length);
    return Promise.all(inputs.map((input, i) => this.#buildOne(input, i)));
  }

  async #buildOne(input: BuilderInput, index: number): Promise<BuilderResult> {
    const t0 = performance.now();
    const elapsed = (): number => performance.now() - t0;
    if ((input?.target as { kind?: unknown } | undefined)?.kind === "c" && (input.func as { kind?: unknown } | undefined)?.kind === "PrimFunc") {
      this.#cpu ??= new CpuBuilder(this.#opts.cpu);
      return this.#cpu.buildOne(input);
    }
    const bad = checkInput(input, index);
    if (bad !== undefined || input.target.kind !== "cuda") return { ok: false, error: bad ?? "", buildMs: 0 };
    const task: GenerateTask = { func: input.func, target: input.target, keepLowered: this.#opts.keepLowered ?? true };
    const generated = await this.#generate(task);
    if (!generated.ok) return { ok: false, error: generated.kind === "timeout" ? `lowering ${generated.error}` : generated.error, buildMs: elapsed() };
    const artifact: GeneratedArtifact = generated.value;
    try {
      // Inside the try: choosing what to compile for can fail too (a target newer than the GPU).
      const compiling = this.#compile.compile(artifact.source, task.target, artifact.name, artifact.requiredArch);
      if (compiling === undefined) return { ok: true, artifact, buildMs: elapsed() };
      const compiled = await withTimeout(compiling, this.timeoutMs, "compilation");
      const built: BuiltArtifact = { ...artifact, image: compiled.image, arch: compiled.arch };
      return { ok: true, artifact: built, buildMs: elapsed() };
    } catch (err) {
      return { ok: false, error: errorText(err), buildMs: elapsed() };
    }
  }

  async #generate(task: GenerateTask): Promise<TaskOutcome<GeneratedArtifact>> {
    const pool = this.#workerPool();
    if (pool !== undefined) return pool.run(task, this.timeoutMs);
    try {
      return { ok: true, value: lowerAndGenerate(task) };
    } catch (err) {
      // As in a worker: any failure of one candidate is its result, not the batch's.
      return { ok: false, kind: "error", error: errorText(err) };
    }
  }

  #warnAboutThreadPool(batch: number): void {
    if (this.#warned || this.compileMode === "none" || this.#opts.log === undefined) return;
    const warning = threadPoolWarning(Math.min(batch, 16));
    if (warning === undefined) return;
    this.#warned = true;
    this.#opts.log("warn", `LocalBuilder: ${warning}`);
  }

  async dispose(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    this.#spawnedBefore += pool?.spawned ?? 0;
    await pool?.dispose();
  }
}
