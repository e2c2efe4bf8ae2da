/**
 * Whether a candidate of gemm+ReLU+add is in the "fast region": the knobs of the corpus's
 * `fastSchedule(n, FAST_PARAMS)` (1.10–1.11× cuBLAS on an H100), read from the lowered module and
 * its CUDA rather than from trace positions, so that any trace layout is judged the same way:
 *   - launch: the grid and the threads per block (256×128 tiles, 256 threads);
 *   - shared memory: each shared array and its size (A's tile transposed and padded, both
 *     double-buffered by the register-prefetch pipeline, k chunk 8);
 *   - registers: the sizes of the local arrays (128 accumulators = 4×4 per virtual thread × 4×2
 *     virtual threads, 8 + 4 fetch registers of float4 loads, the operand slices);
 *   - 128-bit global loads into each fetch register array, `__launch_bounds__` and its minimum
 *     blocks per SM, and the pipelined loop (the shared buffers indexed by the k chunk modulo 2).
 * The region leaves out the warp shape and the unroll budget; `exact` also compares the CUDA text
 * (loop-variable numbers and the order of register declarations aside).
 */
import { type LoweredModule, codegenCuda } from "@tessera/codegen";

export interface GemmKnobs {
  readonly grid: string;
  readonly block: string;
  /** "name[size]" of each shared array, sorted. */
  readonly shared: string;
  /** "name[size]" of each local (register) array, sorted. */
  readonly local: string;
  /** The register arrays filled by 128-bit loads from global memory, sorted. */
  readonly float4Fetches: string;
  /** `__launch_bounds__` arguments, or "none". */
  readonly launchBounds: string;
  /** Shared buffers indexed by a k-chunk parity (double buffering by a software pipeline). */
  readonly pipelined: boolean;
}

export function gemmKnobsOf(module: LoweredModule): GemmKnobs {
  const cuda = codegenCuda(module).source;
  const kernel = module.kernels[0];
  const arrays = (re: RegExp) => [...new Set([...cuda.matchAll(re)].map((m) => `${m[1]!.replace(/_\d+$/, "")}[${m[2]}]`))].sort().join(" ");
  const fetches = [
    ...new Set([...cuda.matchAll(/\*\(float4\*\)\((\w+_local) \+ [^=;\n]*= \*\(float4\*\)\((?!\w+_(?:local|shared))\w+ \+/g)].map((m) => m[1]!)),
  ];
  const bounds = /__launch_bounds__\(([^)]*)\)/.exec(cuda);
  return {
    grid: kernel === undefined ? "none" : kernel.launch.grid.join("×"),
    block: kernel === undefined ? "none" : kernel.launch.block.join("×"),
    shared: arrays(/__shared__ (?:__align__\(\d+\) )?float (\w+)\[(\d+)\];/g),
    local: arrays(/^\s*(?:__align__\(\d+\) )?float (\w+_local(?:_\d+)?)\[(\d+)\];/gm),
    float4Fetches: fetches.sort().join(" "),
    launchBounds: bounds === null ? "none" : bounds[1]!,
    pipelined: /% 2\) \* \d+\)/.test(cuda),
  };
}

/** "a×b": the lengths of a thread's register copies of A and of B, read from `GemmKnobs.local` ("?" when absent). */
export function threadTileOf(localArrays: string): string {
  const length = (name: string) => new RegExp(`\\b${name}\\[(\\d+)\\]`).exec(localArrays)?.[1] ?? "?";
  return `${length("A_shared_local")}×${length("B_shared_local")}`;
}

/** The knobs in which `knobs` differs from `reference` (empty: the same region). */
export function knobDifferences(knobs: GemmKnobs, reference: GemmKnobs): string[] {
  return (Object.keys(reference) as (keyof GemmKnobs)[]).filter((k) => knobs[k] !== reference[k]);
}

/** CUDA with loop-variable numbers erased and register declarations set apart (sorted). */
export function normalizedCuda(cuda: string): string {
  const lines = cuda.replace(/\b([ijk])_\d+/g, "$1_N").split("\n");
  const isRegister = (l: string) => /^\s*__align__\(16\) float \w+_local\[\d+\];$/.test(l);
  return [...lines.filter((l) => !isRegister(l)), ...lines.filter(isRegister).sort()].join("\n");
}
