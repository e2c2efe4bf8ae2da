/**
 * A stand-in GPU built from recorded measurements, for screening search changes without device
 * time (`pnpm bench:search-offline`). Every program of the recorded `bench:tune` runs of one device is
 * rebuilt from its decisions (recorded-runs.ts) and its time is kept as a ratio to the cuBLAS time
 * measured in the same run. A candidate whose CUDA source is one of them "runs" in its recorded
 * time (the median over runs that measured it); any other gets a random forest's estimate, trained
 * on the kernel-summary rows of all recorded programs, times a deterministic per-program factor
 * (log-normal, `roughness`) for what the summary cannot see. The forest's estimate is smoother than
 * a GPU: the report says what share of the measured candidates were recorded programs.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { type CudaTarget, cudaTarget } from "@tessera/codegen";
import type { PrimFunc } from "@tessera/ir";
import { type Runner, type RunnerInput, type RunnerResult } from "../src/index.js";
import { Forest } from "../src/cost-model/forest.js";
import { estimateLatency } from "../src/latency-model/latency-model.js";
import { kernelSummaryRow } from "../src/feature/kernel-summary-feature.js";
import { lowerAndGenerate } from "../src/builder/lower-and-generate.js";
import { seededNormal } from "../src/runner/seeded-normal.js";
import { median } from "../../ir/bench/bench-util.js";
import { eachRecordedRun } from "./recorded-runs.js";

export interface RecordedHardwareOptions {
  /** Only runs whose device name contains this (default "H200"). */
  readonly device?: string;
  /** Standard deviation of the log of the per-program factor on estimated programs (default 0.03). */
  readonly roughness?: number;
}

function sha1(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

interface CacheFile {
  readonly key: string;
  readonly target: string;
  readonly roughness: number;
  readonly cublasMs: number;
  readonly runs: number;
  readonly entries: readonly (readonly [string, number, readonly number[]])[];
}

/** The cache file's table, or undefined when there is none or it does not read as one. */
function readCache(cache: string): CacheFile | undefined {
  if (!existsSync(cache)) return undefined;
  try {
    const saved = JSON.parse(readFileSync(cache, "utf8")) as Partial<CacheFile>;
    return typeof saved.key === "string" && typeof saved.target === "string" && Array.isArray(saved.entries) ? (saved as CacheFile) : undefined;
  } catch {
    return undefined;
  }
}

export class RecordedHardware implements Runner {
  readonly name = "RecordedHardware";
  /** Candidates timed from a recorded measurement and from the forest, since the last `resetCounts`. */
  recordedHits = 0;
  estimated = 0;

  private readonly forest: Forest;

  private constructor(
    /** sha1 of the CUDA source → time over cuBLAS and kernel-summary row. */
    private readonly recorded: ReadonlyMap<string, { readonly ratio: number; readonly row: Float64Array }>,
    private readonly target: CudaTarget,
    private readonly roughness: number,
    /** The cuBLAS time the ratios are turned back into seconds with (the recorded runs' median). */
    readonly cublasMs: number,
    /** Recorded runs it was built from. */
    readonly runs: number,
  ) {
    const entries = [...recorded.values()];
    this.forest = Forest.train(
      entries.map((e) => e.row),
      entries.map((e) => Math.log(e.ratio)),
      { numTrees: 48, maxDepth: 14, minSamplesPerLeaf: 2, columnFraction: 0.5, maxSamplesPerTree: 1024, seed: 11 },
    );
  }

  get programs(): number {
    return this.recorded.size;
  }

  /**
   * Built from the recorded runs, or read from `cache` when it holds a table for the same recorded
   * files and the same latency-model and feature code (rebuilding takes minutes); written there
   * after a build, through a temporary file renamed into place. A cache that does not read (cut
   * short, or not ours) is rebuilt over.
   */
  static cached(cache: string, key: string, build: () => RecordedHardware): RecordedHardware {
    const saved = readCache(cache);
    if (saved?.key === key) {
      const table = new Map(saved.entries.map(([hash, ratio, row]) => [hash, { ratio, row: Float64Array.from(row) }] as const));
      return new RecordedHardware(table, cudaTarget(saved.target), saved.roughness, saved.cublasMs, saved.runs);
    }
    const hw = build();
    const file: CacheFile = {
      key,
      target: hw.target.name,
      roughness: hw.roughness,
      cublasMs: hw.cublasMs,
      runs: hw.runs,
      entries: [...hw.recorded].map(([hash, e]) => [hash, e.ratio, [...e.row]]),
    };
    const partial = `${cache}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(file));
    renameSync(partial, cache);
    return hw;
  }

  static build(dirs: readonly string[], workload: string, func: PrimFunc, target: CudaTarget, opts: RecordedHardwareOptions = {}): RecordedHardware {
    const device = opts.device ?? "H200";
    const ratios = new Map<string, number[]>();
    const rows = new Map<string, Float64Array>();
    const cublasTimes: number[] = [];
    // Run by run: each run's rebuilt programs are lowered and let go before the next run is rebuilt.
    for (const dir of dirs) {
      for (const run of eachRecordedRun(dir, workload, func, target)) {
        const cublasMs = run.cublasMs;
        if (!run.device.includes(device) || cublasMs === undefined || run.programs.length === 0) continue;
        cublasTimes.push(cublasMs);
        for (const p of run.programs) {
          const built = lowerAndGenerate({ func: p.candidate.sch.func, target, keepLowered: true });
          const hash = sha1(built.source);
          if (!rows.has(hash)) rows.set(hash, kernelSummaryRow(estimateLatency(built.lowered!, target), target));
          ratios.set(hash, [...(ratios.get(hash) ?? []), p.ms / cublasMs]);
        }
      }
    }
    if (cublasTimes.length === 0) throw new RangeError(`no recorded ${workload} run on a ${device} with a cuBLAS time in ${dirs.join(", ")}`);
    const table = new Map([...ratios].map(([hash, rs]) => [hash, { ratio: median(rs), row: rows.get(hash)! }] as const));
    return new RecordedHardware(table, target, opts.roughness ?? 0.03, median(cublasTimes), cublasTimes.length);
  }

  /** Time over cuBLAS of a generated program, and whether it was measured. */
  ratioOf(source: string, lowered: NonNullable<RunnerInput["artifact"]["lowered"]>): { ratio: number; recorded: boolean } {
    const r = this.recorded.get(sha1(source));
    if (r !== undefined) return { ratio: r.ratio, recorded: true };
    const row = kernelSummaryRow(estimateLatency(lowered, this.target), this.target);
    const log = this.forest.predict([row])[0]! + this.roughness * seededNormal(source);
    return { ratio: Math.exp(log), recorded: false };
  }

  async run(inputs: readonly RunnerInput[]): Promise<RunnerResult[]> {
    return inputs.map((input) => {
      const lowered = input.artifact.lowered;
      if (lowered === undefined) return { ok: false, error: `${this.name}: ${input.artifact.name} has no lowered module` };
      const { ratio, recorded } = this.ratioOf(input.artifact.source, lowered);
      if (recorded) this.recordedHits++;
      else this.estimated++;
      return { ok: true, runSecs: [(ratio * this.cublasMs) / 1e3] };
    });
  }

  resetCounts(): void {
    this.recordedHits = 0;
    this.estimated = 0;
  }
}
