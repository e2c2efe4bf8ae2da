/**
 * `pnpm bench:tc`: the tensor-core GEMMs `C = A·B` of @tessera/corpus on the GPU, checked and
 * timed against torch in the same run:
 * - `wmma`: wmmaGemmSchedule with WMMA_PARAMS (fp16 operands, fp32 accumulation; 64×128 block
 *   tiles of 2×4 warps, 2×2 fragments per warp, k tiles of 32), against torch fp16 `A @ B` (cuBLAS HGEMM);
 * - `mma`: mmaGemmSchedule with MMA_PARAMS (ldmatrix + mma.sync m16n8k16; 128×128 block tiles of
 *   2×2 warps, 4×4 16×16 tiles per warp, k tiles of 32, 4 cp.async stages, XOR-swizzled shared tiles), against HGEMM;
 * - `wgmma`: wgmmaGemmSchedule with WGMMA_PARAMS (Hopper wgmma.mma_async m64n256k16 from 128B-swizzled
 *   shared memory, sm_90a only; 128×256 block tiles of 2 warpgroups, k stages of 64, 3 cp.async
 *   stages, one fetched ahead while the last stage's wgmmas are in flight), against HGEMM;
 * - `wgmma_ws`: the warp-specialised wgmma GEMM (corpus warpSpecializedWgmmaGemmScript, a
 *   hand-lowered kernel: a producer warpgroup of cp.async copies hands 128×256×64 stages to two
 *   consumer warpgroups through mbarriers; 4 ring slots, `--ws-stages 2,3,4` for others, named
 *   e.g. `wgmma_ws@s3`), against HGEMM; sizes multiples of 256 (a dry run at 256³);
 * - `wgmma_tma`: the same with TMA (corpus tmaWgmmaGemmScript: one producer thread loads each
 *   stage's five 128B-swizzled boxes through tensor maps the runtime encodes; `--ws-stages` too);
 *   `wgmma_tma_r` adds setmaxnreg (producer warpgroup 40 registers, consumers 232), `wgmma_tma_rg`
 *   a rasterised block order too (groups of 8 block rows), `wgmma_tma_p` all that in a persistent
 *   kernel (one block an SM walking the tiles, the ring running on across them; `--tma-blocks 3,66`
 *   for other grids, at most one block a tile); `wgmma_tma_w` / `wgmma_tma_wp` the same as `_rg` /
 *   `_p` with 128-row consumer warpgroups (256×128 block tiles, two m64n128k16 a k step);
 * - `wgmma_tma_tf32` (and `_r`, `_rg`, `_p`, `_w`, `_wp` as above): the TMA GEMM for tf32
 *   (tmaWgmmaTf32Plan: a transpose pre-pass writes Bᵀ — counted in the time — then the kernel loads
 *   A's 128×32 and Bᵀ's 256×32 float32 boxes, m64n256k8 tf32 wgmmas truncating the operands as
 *   cuBLAS's do; `truncatingTf32Gemm`), against torch fp32 `A @ B` with TF32 on;
 * - `wgmma_tma_tf32_rb` (`_rbg` rasterised, `_rbp` rasterised and persistent: one block an SM,
 *   `--tma-blocks` for other grids): the TMA tf32 GEMM without the pre-pass
 *   (tmaWgmmaTf32RegisterBScript: Cᵀ = Bᵀ·Aᵀ with the register-A wgmma, B's fragments loaded from
 *   its TMA boxes and rounded, A truncated; 256×128 tiles), against TF32;
 * - `wgmma_sched_tma`: the `wgmma` schedule with `tma: true` (its copy blocks annotated `tma_copy`:
 *   lowering issues each stage's boxes from one thread on a full mbarrier per stage), against HGEMM;
 * - `wgmma_tf32`: wgmmaTf32GemmSchedule with WGMMA_TF32_PARAMS (wgmma.mma_async m64n256k8 tf32, sm_90a
 *   only: pre-pass kernels write tf32(A) and tf32(B)ᵀ — counted in the time — then 128×256 block
 *   tiles of 2 warpgroups, k stages of 32, 3 cp.async stages), against torch fp32 `A @ B` with TF32 on;
 * - `tf32`: tf32GemmSchedule with TF32_PARAMS (fp32 operands rounded to tf32 on the load path,
 *   mma.sync m16n8k8; 128×128 block tiles, k stages of 16), against torch fp32 `A @ B` with TF32 on;
 * - `tf32_ldmatrix`: the tf32 GEMM with A's fragments through ldmatrix (32-bit elements as b16
 *   pairs) and TF32_LDMATRIX_PARAMS (64×64 warp tiles, k stages of 32, 3 stages), against TF32;
 * - `tf32x3`: tf32x3GemmSchedule with TF32X3_PARAMS (3xTF32: hi and lo tf32 parts split on the load
 *   path, three m16n8k8 MMAs into a chunk accumulator added into the main one every chunk of k, 16
 *   unless `--x3-chunk` says otherwise; float32-accurate), against torch fp32 `A @ B` with TF32 off
 *   (cuBLAS SGEMM); its error must be no worse than 1.5× SGEMM's;
 * - `mma_relu_add`: gemm+ReLU+add in fp16 with fp32 accumulation (`halfGemmReluAdd`, fp16 A, B, C
 *   and D; mmaGemmReluAddSchedule with MMA_PARAMS, the epilogue in each tile's store), timed against
 *   HGEMM's `A @ B`, its error beside torch's fp16 `relu(A @ B) + C`;
 * - `wgmma_tf32x3`, `wgmma_tf32x3_relu_add`: 3xTF32 (GEMM, gemm+ReLU+add) on the tf32 wgmma
 *   (wgmmaTf32x3GemmSchedule / …ReluAddSchedule with WGMMA_TF32X3_PARAMS: pre-passes write the hi
 *   and lo tf32 parts of Bᵀ — counted in the time — A is split into hi and lo in registers as it is
 *   loaded from shared memory (`.sa`: pre-passes for A too), then three m64n128k8 wgmmas per k step
 *   into a chunk accumulator added into the main one every 32 k; 128×128 block tiles, 3 stages),
 *   against SGEMM, errors as tf32x3's; in a dry run within 2⁻¹⁹ of the executor's largest |output|
 *   (the three instructions add a k step's products in another order than the function);
 * - `tf32x3_relu_add`: gemm+ReLU+add `D = max(A·B, 0) + C` through 3xTF32 (tf32x3GemmReluAddSchedule,
 *   the epilogue in each tile's store), timed against SGEMM's `A @ B`, its error against float64
 *   beside torch's `relu(A @ B) + C` with TF32 off;
 * for each:
 * - ours: `build(…, "cuda")`, timeEvaluator (number 3, repeat 10, minRepeatMs 100), median ms;
 * - torch: the baseline GEMM, CUDA events around 3 runs, 10 repeats, median ms per run; the ratio
 *   is ours / baseline. That is a burst of ~40 runs after the GPU idled, while ours runs back to
 *   back for ~1 s: on an H200 a TF32 GEMM that long runs at lower clocks, so the baseline is also
 *   timed with ours' protocol (\`baselineSustainedMs\`, \`ratioToSustainedBaseline\`: the like-for-like ratio);
 * - numerics: the max |error| against float64 of ours, of torch's fp32 GEMM of the same operands
 *   (TF32 off: SGEMM) and of the baseline; ours must be within 4× the larger of SGEMM's and the
 *   baseline's error (+1e-4), tf32x3 within 1.5× SGEMM's.
 * `--dry-run`: the sim device (the GPU simulator) at 128³ against the CPU executor, bit for bit;
 * no torch, no timing. `--sizes 2048,4096` (default), `--kernels wmma,mma,wgmma,wgmma_tf32,tf32,tf32_ldmatrix,tf32x3,mma_relu_add,tf32x3_relu_add,wgmma_tf32x3,wgmma_tf32x3_relu_add` (default all), `--seed N`,
 * `--wgmma-tilings 2x128.s4,2x256.s3` (the wgmma kernels once per tiling: warpgroups × N, pipeline
 * stages, `.wf` for the wgmmas before the copies, `.ra`/`.sa` for the tf32 kernels' A from registers / shared memory; named e.g. `wgmma@2x256.s3`), `--x3-chunk 16,32,64` (the 3xTF32 kernels once per chunk of k, named e.g. `tf32x3@chunk32`; default
 * the k stage of TF32X3_PARAMS), `--out FILE.json`. `--tilings 2x4.4x2.k2.s2,2x2.4x4.k2.s3` runs every mma.sync kernel (all but
 * wmma) once per tiling instead of with its default: warps i×j, 16×16 tiles per warp i×j, k tiles
 * per shared stage, pipeline stages (more than 2 put the shared tiles in dynamic shared memory), and
 * `.nopad` for unpadded shared rows or `.swz` for XOR-swizzled ones (`swizzle: true`, TVM's permuted
 * layout), e.g. `2x2.4x4.k2.s3,2x2.4x4.k2.s3.swz` compares padded and swizzled. Exits 1 when a check fails.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type MmaGemmParams,
  MMA_PARAMS,
  TF32X3_PARAMS,
  TF32_LDMATRIX_PARAMS,
  TF32_PARAMS,
  type Tf32x3GemmParams,
  WGMMA_PARAMS,
  WMMA_PARAMS,
  halfGemmReluAdd,
  mmaGemmReluAddSchedule,
  mmaGemmSchedule,
  tf32Gemm,
  tf32GemmSchedule,
  tf32x3Chunk,
  tf32x3Gemm,
  tf32x3GemmReluAdd,
  tf32x3GemmReluAddSchedule,
  tf32x3GemmSchedule,
  type WgmmaTf32Params,
  wgmmaGemmSchedule,
  WGMMA_TF32_PARAMS,
  WGMMA_TF32X3_CHUNK,
  WGMMA_TF32X3_PARAMS,
  wgmmaTf32GemmSchedule,
  wgmmaTf32x3GemmReluAddSchedule,
  wgmmaTf32x3GemmSchedule,
  warpSpecializedWgmmaGemmScript,
  tmaWgmmaGemmScript,
  tmaWgmmaTf32Plan,
  tmaWgmmaTf32RegisterBScript,
  tf32GemmConverting,
  truncatingTf32Gemm,
  wmmaGemm,
  wmmaGemmSchedule,
} from "@tessera/corpus";
import { type LoweredModule, cudaTarget, lower, moduleFromKernelFunc, moduleFromKernelFuncs } from "@tessera/codegen";
import { Schedule, WGMMA_N, type WgmmaN } from "@tessera/schedule";
import { type PrimFunc, compilePrimFunc, encodeHalfArray, parsePrimFunc, randomArgs } from "@tessera/ir";
import { execa } from "execa";
import { parseGemmBenchOptions } from "./gemm-bench-options.js";
import { TC_TIMING as TIMING, TC_TORCH_SCRIPT, tcTorchTimingEnv } from "./tc-torch-script.js";
import { NDArray, build, cuda } from "../src/index.js";

/** torch's GEMM a kernel is timed against: fp16 `A @ B` (cuBLAS HGEMM), fp32 with TF32 on, or fp32 with TF32 off (SGEMM). */
type Baseline = "hgemm" | "tf32" | "sgemm";

interface KernelSpec {
  /**
   * The schedule at size n; `params` (a `--tilings` entry) replaces the kernel's default tiling where
   * it takes one. A hand-lowered kernel (the warp-specialised wgmma GEMM) is a LoweredModule.
   */
  readonly schedule: (n: number, params?: MmaGemmParams) => Schedule | LoweredModule;
  /** The smallest size the kernel tiles (the dry run uses it when its size is not a multiple). */
  readonly minN?: number;
  /** Whether `schedule` takes a tiling (the mma.sync kernels; WMMA has its own parameters). */
  readonly tiled?: boolean;
  /** The unscheduled function (A, B, C; with reluAdd A, B, C, D), the executor's reference in a dry run. */
  readonly original: (n: number) => PrimFunc;
  /** gemm+ReLU+add: `D = max(A·B, 0) + C`, D the fourth argument (C and D stored as the operands). */
  readonly reluAdd?: boolean;
  /** How A and B are stored on the device. */
  readonly operands: "float16" | "float32";
  /**
   * Dry run: the simulator's sums may differ from the executor's by this much relative to the
   * largest |output| (3xTF32 on wgmma: three instructions add a k step's products in another order
   * than the function's); absent: bit for bit.
   */
  readonly simulatorTolerance?: number;
  readonly baseline: Baseline;
}

/** The 3xTF32 chunk of k without `--x3-chunk`: one k stage of TF32X3_PARAMS. */
const DEFAULT_X3_CHUNK = tf32x3Chunk(TF32X3_PARAMS);

/**
 * The 3xTF32 kernels, summing chunks of `chunk` k, with TF32X3_PARAMS or a `--tilings` entry (the
 * chunk stays `chunk` under any tiling, so the executor's reference sums the same chunks; a tiling
 * whose k stage does not fit it is refused by the schedule, by name).
 */
function tf32x3Kernels(chunk: number): Readonly<Record<"tf32x3" | "tf32x3_relu_add", KernelSpec>> {
  const params = (p: MmaGemmParams | undefined): Tf32x3GemmParams => ({ ...(p ?? TF32X3_PARAMS), chunk });
  return {
    tf32x3: {
      schedule: (n, p) => tf32x3GemmSchedule(n, params(p)),
      tiled: true,
      original: (n) => tf32x3Gemm(n, chunk),
      operands: "float32",
      baseline: "sgemm",
    },
    tf32x3_relu_add: {
      schedule: (n, p) => tf32x3GemmReluAddSchedule(n, params(p)),
      tiled: true,
      original: (n) => tf32x3GemmReluAdd(n, chunk),
      operands: "float32",
      baseline: "sgemm",
      reluAdd: true,
    },
  };
}

/** SMs of an H100 or H200 SXM: the persistent TMA kernel's grid in a dry run (on a GPU, its SM count). */
const H100_SMS = 132;

/** A form of the TMA wgmma GEMM: setmaxnreg, rasterised groups of block rows, persistent, 128-row consumers. */
interface TmaForm {
  readonly regs: boolean;
  readonly groupRows?: number;
  readonly persistent?: true;
  readonly consumerRows?: 128;
}

/** The TMA GEMMs' forms by suffix (`wgmma_tma_rg`, `wgmma_tma_tf32_wp`, …). */
const TMA_FORMS: Readonly<Record<string, TmaForm>> = {
  "": { regs: false },
  _r: { regs: true },
  _rg: { regs: true, groupRows: 8 },
  _p: { regs: true, groupRows: 8, persistent: true },
  _w: { regs: true, groupRows: 8, consumerRows: 128 },
  _wp: { regs: true, groupRows: 8, persistent: true, consumerRows: 128 },
};

/** The TMA wgmma GEMMs by name (fp16 `wgmma_tma…`, tf32 `wgmma_tma_tf32…`), for a ring of `stages` slots (and a persistent grid of `blocks`, default one block an SM). */
const TMA_VARIANTS: Readonly<Record<string, { readonly persistent: boolean; readonly make: (stages: number, blocks?: number) => KernelSpec }>> = {
  ...Object.fromEntries(
    (["float16", "tf32"] as const).flatMap((operands) =>
      Object.entries(TMA_FORMS).map(([suffix, form]) => [
        `wgmma_tma${operands === "tf32" ? "_tf32" : ""}${suffix}`,
        { persistent: form.persistent === true, make: (stages: number, blocks?: number) => tmaWgmma(operands, stages, form, blocks) },
      ]),
    ),
  ),
  wgmma_tma_tf32_rb: { persistent: false, make: (stages: number) => tmaWgmmaRegisterB(stages) },
  wgmma_tma_tf32_rbg: { persistent: false, make: (stages: number) => tmaWgmmaRegisterB(stages, 8) },
  wgmma_tma_tf32_rbp: { persistent: true, make: (stages: number, blocks?: number) => tmaWgmmaRegisterB(stages, 8, blocks ?? "sms") },
};

/** The tensor-core kernels measured, by name. */
const KERNELS: Readonly<Record<string, KernelSpec>> = {
  wmma: { schedule: (n) => wmmaGemmSchedule(n, WMMA_PARAMS), original: wmmaGemm, operands: "float16", baseline: "hgemm" },
  mma: { schedule: (n, p) => mmaGemmSchedule(n, p ?? MMA_PARAMS), tiled: true, original: wmmaGemm, operands: "float16", baseline: "hgemm" },
  wgmma: { schedule: (n) => wgmmaGemmSchedule(n, WGMMA_PARAMS), original: wmmaGemm, operands: "float16", baseline: "hgemm", minN: 256 },
  wgmma_sched_tma: {
    schedule: (n) => wgmmaGemmSchedule(n, { ...WGMMA_PARAMS, tma: true }),
    original: wmmaGemm,
    operands: "float16",
    baseline: "hgemm",
    minN: 256,
  },
  wgmma_tf32: { schedule: (n) => wgmmaTf32GemmSchedule(n, WGMMA_TF32_PARAMS), original: tf32Gemm, operands: "float32", baseline: "tf32" },
  wgmma_ws: warpSpecializedWgmma(4),
  ...Object.fromEntries(Object.entries(TMA_VARIANTS).map(([name, variant]) => [name, variant.make(4)])),
  tf32: { schedule: (n, p) => tf32GemmSchedule(n, p ?? TF32_PARAMS), tiled: true, original: tf32Gemm, operands: "float32", baseline: "tf32" },
  tf32_ldmatrix: {
    schedule: (n, p) => tf32GemmSchedule(n, { ...(p ?? TF32_LDMATRIX_PARAMS), ldmatrixA: true }),
    tiled: true,
    original: tf32Gemm,
    operands: "float32",
    baseline: "tf32",
  },
  tf32x3: tf32x3Kernels(DEFAULT_X3_CHUNK).tf32x3,
  mma_relu_add: {
    schedule: (n, p) => mmaGemmReluAddSchedule(n, p ?? MMA_PARAMS),
    tiled: true,
    original: (n) => halfGemmReluAdd(n, "float16").func,
    operands: "float16",
    baseline: "hgemm",
    reluAdd: true,
  },
  tf32x3_relu_add: tf32x3Kernels(DEFAULT_X3_CHUNK).tf32x3_relu_add,
  wgmma_tf32x3: {
    schedule: (n) => wgmmaTf32x3GemmSchedule(n, WGMMA_TF32X3_PARAMS),
    original: (n) => tf32x3Gemm(n, WGMMA_TF32X3_CHUNK),
    operands: "float32",
    baseline: "sgemm",
    simulatorTolerance: 2 ** -19,
  },
  wgmma_tf32x3_relu_add: {
    schedule: (n) => wgmmaTf32x3GemmReluAddSchedule(n, WGMMA_TF32X3_PARAMS),
    original: (n) => tf32x3GemmReluAdd(n, WGMMA_TF32X3_CHUNK),
    operands: "float32",
    baseline: "sgemm",
    reluAdd: true,
    simulatorTolerance: 2 ** -19,
  },
};

/** The warp-specialised wgmma GEMM with `stages` ring slots, lowered for sm_90 (hand-written TIR). */
function warpSpecializedWgmma(stages: number): KernelSpec {
  const module = (n: number): LoweredModule =>
    moduleFromKernelFunc(parsePrimFunc(warpSpecializedWgmmaGemmScript(n, { stages, name: "wgmma_ws_gemm" })), { target: cudaTarget("nvidia/h100") });
  return { schedule: module, original: wmmaGemm, operands: "float16", baseline: "hgemm", minN: 256 };
}

/**
 * The TMA wgmma GEMM in `form` with `stages` ring slots (setmaxnreg 40 / 232 with `regs`), lowered for
 * sm_90 (hand-written TIR); tf32: the Bᵀ pre-pass and the kernel (tmaWgmmaTf32Plan), against cuBLAS TF32.
 */
function tmaWgmma(operands: "float16" | "tf32", stages: number, form: TmaForm, blocks?: number): KernelSpec {
  const { regs, groupRows, consumerRows = 64 } = form;
  const persistentBlocks = form.persistent === true ? (blocks ?? "sms") : undefined;
  const maxRegisters = regs ? { producer: 40, consumer: 232 } : undefined;
  const name = `wgmma_tma${operands === "tf32" ? "_tf32" : ""}${regs ? "_r" : ""}${groupRows === undefined ? "" : "g"}${persistentBlocks === undefined ? "" : "p"}${consumerRows === 128 ? "w" : ""}_gemm`;
  // A group never taller than the grid (256³ has two block rows), a persistent grid never larger than the tiles.
  const group = (n: number) => (groupRows === undefined ? {} : { groupRows: Math.min(groupRows, n / (2 * consumerRows)) });
  // "sms": one block an SM of the GPU measured (of an H100 in a dry run); --tma-blocks names others.
  const grid = () => (persistentBlocks !== "sms" ? (persistentBlocks ?? 0) : cuda.available() ? cuda.device(0).multiprocessorCount : H100_SMS);
  const persistent = (n: number) => (persistentBlocks === undefined ? {} : { persistentBlocks: Math.min(grid(), (n / 128) * (n / 256)) });
  const rows = consumerRows === 128 ? { consumerRows } : {};
  const options = (n: number) => ({ stages, name, ...rows, ...group(n), ...persistent(n), ...(maxRegisters === undefined ? {} : { maxRegisters }) });
  const target = cudaTarget("nvidia/h100");
  if (operands === "tf32")
    return {
      schedule: (n) => moduleFromKernelFuncs(tmaWgmmaTf32Plan(n, options(n)), { target }),
      original: truncatingTf32Gemm,
      operands: "float32",
      baseline: "tf32",
      minN: 256,
    };
  const module = (n: number): LoweredModule => moduleFromKernelFunc(parsePrimFunc(tmaWgmmaGemmScript(n, options(n))), { target });
  return { schedule: module, original: wmmaGemm, operands: "float16", baseline: "hgemm", minN: 256 };
}

/**
 * The TMA tf32 GEMM with B from registers (tmaWgmmaTf32RegisterBScript: Cᵀ = Bᵀ·Aᵀ, B's fragments
 * loaded from its N-major boxes and rounded, no pre-pass; A truncated), `groupRows` rasterised,
 * persistent with `blocks` ("sms": one block an SM).
 */
function tmaWgmmaRegisterB(stages: number, groupRows?: number, blocks?: number | "sms"): KernelSpec {
  const name = `wgmma_tma_tf32_rb${groupRows === undefined ? "" : "g"}${blocks === undefined ? "" : "p"}_gemm`;
  const group = (n: number) => (groupRows === undefined ? {} : { groupRows: Math.min(groupRows, n / 256) });
  const grid = () => (blocks !== "sms" ? (blocks ?? 0) : cuda.available() ? cuda.device(0).multiprocessorCount : H100_SMS);
  const persistent = (n: number) => (blocks === undefined ? {} : { persistentBlocks: Math.min(grid(), (n / 256) * (n / 128)) });
  return {
    schedule: (n) =>
      moduleFromKernelFunc(parsePrimFunc(tmaWgmmaTf32RegisterBScript(n, { stages, name, ...group(n), ...persistent(n) })), {
        target: cudaTarget("nvidia/h100"),
      }),
    original: (n) => tf32GemmConverting(n, { a: "truncate", b: "round" }),
    operands: "float32",
    baseline: "tf32",
    minN: 256,
  };
}

/** The kernels that `--wgmma-tilings` retiles, by name. */
const WGMMA_SCHEDULES: Readonly<Record<string, (n: number, p: WgmmaTf32Params) => Schedule>> = {
  wgmma: wgmmaGemmSchedule,
  wgmma_tf32: wgmmaTf32GemmSchedule,
  wgmma_tf32x3: wgmmaTf32x3GemmSchedule,
  wgmma_tf32x3_relu_add: wgmmaTf32x3GemmReluAddSchedule,
};

/** A `--tilings` entry: its text and the tiling it names. */
interface Tiling {
  readonly text: string;
  readonly params: MmaGemmParams;
}

const tilingField = (t: Tiling | undefined): { tiling?: string } => (t === undefined ? {} : { tiling: t.text });

/**
 * `--tilings 2x4.4x2.k2.s2,2x2.4x4.k2.s3.nopad,2x2.4x4.k2.s3.swz`: warps (i×j), 16×16 tiles per warp
 * (i×j), k tiles per shared stage, pipeline stages, and `nopad` for unpadded shared rows or `swz`
 * for XOR-swizzled ones (padded without either); comma-separated.
 */
function parseTilings(argv: readonly string[]): Tiling[] {
  const i = argv.indexOf("--tilings");
  if (i < 0) return [];
  return (argv[i + 1] ?? "").split(",").map((text) => {
    const m = /^(\d+)x(\d+)\.(\d+)x(\d+)\.k(\d+)\.s(\d+)(\.nopad|\.swz)?$/.exec(text);
    if (m === null) throw new Error(`--tilings: expected WIxWJ.TIxTJ.kK.sS[.nopad|.swz] (e.g. 2x4.4x2.k2.s3), got ${JSON.stringify(text)}`);
    const [wi, wj, ti, tj, k, stages] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
    const layout = m[7] === ".swz" ? { padShared: false, swizzle: true } : { padShared: m[7] === undefined };
    return { text, params: { warps: [wi, wj], tilesPerWarp: [ti, tj], kTiles: k, ...layout, pipelineStages: stages } };
  });
}

/** The argument a kernel writes. */
const outputOf = (spec: KernelSpec): number => (spec.reluAdd === true ? 3 : 2);

/**
 * `--wgmma-tilings 2x128.s4,2x256.s3,4x128.s4.wf`: warpgroups per block × the block tile's columns
 * (N of the m64nNk16 wgmma: 64, 128 or 256), pipeline stages, and `.wf` for each stage's wgmmas
 * issued before the copies (`wgmmaBeforeCopies`: one barrier per k stage), and for the tf32 kernels
 * `.ra` / `.sa` for A from registers or from shared memory (`registerA`; each kernel's default
 * without), and with A from registers `.ak` / `.as` for A's register loads per k step, overlapping
 * the wgmmas, or all at the stage (`kStepALoads`, default per k step), and `.sd` for scale-d 0 in
 * place of the accumulators' zero fills (lowered with foldWgmmaZeroFill, for nvidia/h100), and `.tma`
 * for TMA loads of the stages (`tma`: needs a pipeline); the wgmma kernel runs once per entry.
 */
function parseWgmmaTiling(text: string): WgmmaTf32Params & { readonly scaleDZero?: boolean } {
  const m = /^(\d+)x(\d+)\.s(\d+)(\.wf)?(\.ra|\.sa)?(\.ak|\.as)?(\.sd)?(\.tma)?$/.exec(text);
  const n = Number(m?.[2]);
  if (m === null || !(WGMMA_N as readonly number[]).includes(n))
    throw new Error(
      `--wgmma-tilings: expected GxN.sS[.wf][.ra|.sa][.ak|.as][.sd][.tma] with N one of ${WGMMA_N.join(", ")} (e.g. 2x128.s4), got ${JSON.stringify(text)}`,
    );
  const tiling = { warpgroups: Number(m[1]), n: n as WgmmaN, pipelineStages: Number(m[3]) };
  return {
    ...tiling,
    ...(m[4] === undefined ? {} : { wgmmaBeforeCopies: true }),
    ...(m[5] === undefined ? {} : { registerA: m[5] === ".ra" }),
    ...(m[6] === undefined ? {} : { kStepALoads: m[6] === ".ak" }),
    ...(m[7] === undefined ? {} : { scaleDZero: true }),
    ...(m[8] === undefined ? {} : { tma: true }),
  };
}

/**
 * The kernels to run, by name: `--kernels`, the 3xTF32 ones once per chunk of `--x3-chunk`
 * (named `tf32x3@chunk32`) and the wgmma one once per `--wgmma-tilings` entry (named
 * `wgmma@2x256.s3`) when they are given.
 */
function parseKernels(argv: readonly string[]): [name: string, spec: KernelSpec][] {
  const at = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? (argv[i + 1] ?? "") : undefined;
  };
  const names = (at("--kernels") ?? Object.keys(KERNELS).join(",")).split(",");
  for (const name of names)
    if (KERNELS[name] === undefined) throw new Error(`--kernels: known kernels are ${Object.keys(KERNELS).join(", ")}, got ${JSON.stringify(name)}`);
  const chunks = at("--x3-chunk")?.split(",").map(Number);
  if (chunks?.some((c) => !Number.isInteger(c) || c < 8 || c % 8 !== 0)) throw new Error(`--x3-chunk: multiples of 8 expected, got ${at("--x3-chunk")}`);
  const wsStages = at("--ws-stages")?.split(",").map(Number);
  if (wsStages?.some((x) => !Number.isInteger(x) || x < 1 || x > 4)) throw new Error(`--ws-stages: 1 to 4 expected, got ${at("--ws-stages")}`);
  const tmaBlocks = at("--tma-blocks")?.split(",").map(Number);
  if (tmaBlocks?.some((x) => !Number.isInteger(x) || x < 1)) throw new Error(`--tma-blocks: positive integers expected, got ${at("--tma-blocks")}`);
  const wgmmaTilings = at("--wgmma-tilings")
    ?.split(",")
    .map((text) => [text, parseWgmmaTiling(text)] as const);
  return names.flatMap((name): [string, KernelSpec][] => {
    if (chunks !== undefined && (name === "tf32x3" || name === "tf32x3_relu_add"))
      return chunks.map((chunk) => [`${name}@chunk${chunk}`, tf32x3Kernels(chunk)[name]]);
    if (wsStages !== undefined && name === "wgmma_ws") return wsStages.map((stages) => [`${name}@s${stages}`, warpSpecializedWgmma(stages)]);
    const tma = TMA_VARIANTS[name];
    if (tma !== undefined && (wsStages !== undefined || (tmaBlocks !== undefined && tma.persistent))) {
      const grids: (number | undefined)[] = tma.persistent ? (tmaBlocks ?? [undefined]) : [undefined];
      return grids.flatMap((blocks) =>
        (wsStages ?? [4]).map((stages): [string, KernelSpec] => [`${name}@${blocks === undefined ? "" : `b${blocks}.`}s${stages}`, tma.make(stages, blocks)]),
      );
    }
    const wgmmaSchedule = WGMMA_SCHEDULES[name];
    if (wgmmaTilings !== undefined && wgmmaSchedule !== undefined)
      return wgmmaTilings.map(([text, p]) => [
        `${name}@${text}`,
        {
          ...KERNELS[name]!,
          schedule: (n) => (p.scaleDZero === true ? lower(wgmmaSchedule(n, p), "nvidia/h100", { foldWgmmaZeroFill: true }) : wgmmaSchedule(n, p)),
        },
      ]);
    return [[name, KERNELS[name]!]];
  });
}

interface TorchResult {
  readonly baseline: Baseline;
  /** CUDA events around 3 runs, 10 repeats, median ms per run: short bursts (the GPU at its burst clocks). */
  readonly baselineMs: number;
  /** Timed as ours is (TIMING, timeEvaluator's protocol: samples of at least minRepeatMs of back-to-back runs), median ms per run. */
  readonly baselineSustainedMs: number;
  readonly oursMaxAbsErrorToFloat64: number;
  /** torch's fp32 GEMM with TF32 off (cuBLAS SGEMM). */
  readonly torchFp32MaxAbsErrorToFloat64: number;
  readonly torchBaselineMaxAbsErrorToFloat64: number;
  readonly torch: string;
  readonly device: string;
}

interface Result {
  readonly kernel: string;
  /** The `--tilings` entry the kernel ran with (absent: its default tiling). */
  readonly tiling?: string;
  readonly n: number;
  readonly device: "cuda" | "sim";
  readonly oursMs?: number;
  readonly tflops?: number;
  readonly ratioToBaseline?: number;
  /** ours / the baseline timed with ours' protocol (`baselineSustainedMs`): both at the clocks a second of back-to-back GEMMs sustains. */
  readonly ratioToSustainedBaseline?: number;
  /** Dry run: elements whose bits differ from the executor's. */
  readonly executorBitsDiffering?: number;
  /** Dry run of a kernel with a `simulatorTolerance`: the largest |simulator − executor| and the one tolerated. */
  readonly executorMaxAbsDelta?: number;
  readonly toleratedAbsDelta?: number;
  readonly torch?: TorchResult | { readonly skipped: string };
  readonly passed: boolean;
}

/** The bytes of an operand as the device holds it. */
function operandBytes(x: Float32Array, operands: KernelSpec["operands"]): Uint8Array | Uint16Array {
  return operands === "float16" ? encodeHalfArray("float16", x) : new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
}

async function torchComparison(spec: KernelSpec, n: number, inputs: readonly Float32Array[], ours: Float32Array): Promise<TorchResult | { skipped: string }> {
  const dir = mkdtempSync(join(tmpdir(), "tessera-tc-gemm-"));
  try {
    writeFileSync(join(dir, "A.bin"), operandBytes(inputs[0]!, spec.operands));
    writeFileSync(join(dir, "B.bin"), operandBytes(inputs[1]!, spec.operands));
    if (spec.reluAdd === true) writeFileSync(join(dir, "CIN.bin"), operandBytes(inputs[2]!, spec.operands));
    writeFileSync(join(dir, "OUT.bin"), new Uint8Array(ours.buffer, ours.byteOffset, ours.byteLength));
    const env = {
      TESSERA_N: String(n),
      TESSERA_DIR: dir,
      TESSERA_OPERANDS: spec.operands,
      TESSERA_BASELINE: spec.baseline,
      TESSERA_RELU_ADD: spec.reluAdd === true ? "1" : "0",
      ...tcTorchTimingEnv(TIMING),
    };
    const r = await execa("python3", ["-c", TC_TORCH_SCRIPT], { env, reject: false, all: true, timeout: 600_000 });
    if (r.exitCode !== 0) return { skipped: `python3 with torch failed (exit ${r.exitCode}): ${String(r.all).trim().split("\n").slice(-2).join(" | ")}` };
    return JSON.parse(String(r.stdout).trim().split("\n").pop() ?? "{}") as TorchResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function dryRun(kernel: string, spec: KernelSpec, size: number, seed: number, tiling?: Tiling): Promise<Result> {
  const n = spec.minN !== undefined && size % spec.minN !== 0 ? spec.minN : size;
  const original = spec.original(n);
  const inputs = randomArgs(original, seed) as Float32Array[];
  const out = outputOf(spec);
  inputs[out]!.fill(Number.NaN);
  const mod = await build(spec.schedule(n, tiling?.params), "nvidia/h100", { device: "sim" });
  const simulated = inputs.map((x) => x.slice());
  mod(...simulated);
  compilePrimFunc(original).run(inputs);
  const [want, got] = [new Uint32Array(inputs[out]!.buffer), new Uint32Array(simulated[out]!.buffer)];
  let [differing, maxDelta, scale] = [0, 0, 0];
  for (let i = 0; i < want.length; i++) {
    if (want[i] !== got[i]) differing++;
    maxDelta = Math.max(maxDelta, Math.abs(inputs[out]![i]! - simulated[out]![i]!));
    scale = Math.max(scale, Math.abs(inputs[out]![i]!));
  }
  const tolerance = spec.simulatorTolerance;
  return {
    kernel,
    ...tilingField(tiling),
    n,
    device: "sim",
    executorBitsDiffering: differing,
    ...(tolerance === undefined ? {} : { executorMaxAbsDelta: maxDelta, toleratedAbsDelta: tolerance * scale }),
    torch: { skipped: "dry run (no GPU)" },
    // NaN (an output not written) is never within a tolerance.
    passed: tolerance === undefined ? differing === 0 : maxDelta <= tolerance * scale,
  };
}

async function onGpu(kernel: string, spec: KernelSpec, n: number, seed: number, tiling?: Tiling): Promise<Result> {
  const inputs = randomArgs(spec.original(n), seed) as Float32Array[];
  const input = spec.schedule(n, tiling?.params);
  // A lowered module keeps its own target (sm_90 limits); a schedule is lowered for the local GPU.
  const mod = await build(input, input instanceof Schedule ? "cuda" : undefined, { device: "cuda", cacheDir: false });
  const upload = (x: Float32Array) =>
    spec.operands === "float16" ? NDArray.fromFloats(x, { dtype: "float16", shape: [n, n] }) : NDArray.from(x, { dtype: "float32", shape: [n, n] });
  const operands = [upload(inputs[0]!), upload(inputs[1]!)];
  if (spec.reluAdd === true) operands.push(upload(inputs[2]!));
  const out =
    spec.reluAdd === true
      ? upload(new Float32Array(n * n).fill(Number.NaN))
      : NDArray.from(new Float32Array(n * n).fill(Number.NaN), { shape: [n, n], dtype: "float32" });
  const args = [...operands, out];
  try {
    mod(...args);
    const ours = out.toFloat32Array();
    const timing = await mod.timeEvaluator(TIMING)(...args);
    const torch = await torchComparison(spec, n, inputs, ours);
    // float32-accurate kernels (SGEMM's baseline) must be as accurate as SGEMM; the others within 4× of the less accurate GEMM.
    const ok =
      !("skipped" in torch) &&
      (spec.baseline === "sgemm"
        ? torch.oursMaxAbsErrorToFloat64 <= 1.5 * torch.torchFp32MaxAbsErrorToFloat64
        : torch.oursMaxAbsErrorToFloat64 <= 4 * Math.max(torch.torchFp32MaxAbsErrorToFloat64, torch.torchBaselineMaxAbsErrorToFloat64) + 1e-4);
    return {
      kernel,
      ...tilingField(tiling),
      n,
      device: "cuda",
      oursMs: timing.median,
      tflops: (2 * n ** 3) / (timing.median / 1e3) / 1e12,
      ...("skipped" in torch ? {} : { ratioToBaseline: timing.median / torch.baselineMs, ratioToSustainedBaseline: timing.median / torch.baselineSustainedMs }),
      torch,
      passed: ok,
    };
  } finally {
    for (const x of args) x.dispose();
    mod.dispose();
  }
}

const BASELINE_NAMES: Readonly<Record<Baseline, string>> = { hgemm: "cuBLAS HGEMM", tf32: "cuBLAS TF32", sgemm: "cuBLAS SGEMM" };

function describe(r: Result): string {
  const kernel = r.tiling === undefined ? r.kernel : `${r.kernel}[${r.tiling}]`;
  if (r.device === "sim")
    return `${r.passed ? "PASS" : "FAIL"} ${kernel} gemm ${r.n}³ on sim: ${r.executorBitsDiffering} elements with other bits than the executor${
      r.toleratedAbsDelta === undefined ? "" : ` (max |Δ| ${r.executorMaxAbsDelta?.toExponential(2)}, tolerated ${r.toleratedAbsDelta.toExponential(2)})`
    }`;
  const t = r.torch;
  const torch =
    t === undefined || "skipped" in t
      ? `torch: ${t?.skipped ?? "not run"}`
      : `${BASELINE_NAMES[t.baseline]} ${t.baselineMs.toPrecision(4)} ms, ratio ${r.ratioToBaseline?.toFixed(2)}; sustained ${t.baselineSustainedMs.toPrecision(4)} ms, ratio ${r.ratioToSustainedBaseline?.toFixed(2)}; max |Δ| to float64 ours ${t.oursMaxAbsErrorToFloat64.toExponential(2)}, SGEMM ${t.torchFp32MaxAbsErrorToFloat64.toExponential(2)}, ${BASELINE_NAMES[t.baseline]} ${t.torchBaselineMaxAbsErrorToFloat64.toExponential(2)} (${t.device})`;
  return `${r.passed ? "PASS" : "FAIL"} ${kernel} gemm ${r.n}³ on cuda: ${r.oursMs?.toPrecision(4)} ms (${r.tflops?.toFixed(1)} TFLOP/s); ${torch}`;
}

/** The kernels and tilings asked for, or one line naming the bad option and exit status 2 (no stack trace). */
function commandLineOrExit(argv: readonly string[]): { kernels: ReturnType<typeof parseKernels>; tilings: Tiling[] } {
  try {
    return { kernels: parseKernels(argv), tilings: parseTilings(argv) };
  } catch (err) {
    console.error(`bench:tc: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  }
}

async function main(): Promise<void> {
  const opts = parseGemmBenchOptions(process.argv.slice(2), { sizes: "2048,4096", dryRunSizes: "128", multipleOf: 128 });
  const { kernels, tilings } = commandLineOrExit(process.argv.slice(2));
  if (!opts.dryRun && !cuda.available()) {
    // Nothing to measure here: a skip, not a failure (the arguments were checked above).
    console.log(`SKIP bench:tc: no CUDA device (${cuda.unavailableReason() ?? "unknown"}); --dry-run checks the same kernels in the simulator`);
    return;
  }
  const results: Result[] = [];
  for (const n of opts.sizes) {
    for (const [kernel, spec] of kernels) {
      // A kernel that takes a tiling runs once per --tilings entry; the others (and all without the flag) once.
      for (const tiling of spec.tiled === true && tilings.length > 0 ? tilings : [undefined]) {
        const label = tiling === undefined ? kernel : `${kernel}[${tiling.text}]`;
        try {
          const r = opts.dryRun ? await dryRun(kernel, spec, n, opts.seed, tiling) : await onGpu(kernel, spec, n, opts.seed, tiling);
          results.push(r);
          console.log(describe(r));
        } catch (err) {
          const message = err instanceof Error ? `${err.message}${"log" in err ? `\n${String(err.log)}` : ""}` : String(err);
          console.log(`FAIL ${label} gemm ${n}³: ${message.split("\n").slice(0, 6).join(" | ")}`);
          process.exitCode = 1;
        }
      }
    }
  }
  if (opts.out !== undefined) writeFileSync(opts.out, `${JSON.stringify({ seed: opts.seed, timing: TIMING, results }, null, 2)}\n`);
  if (results.some((r) => !r.passed)) process.exitCode = 1;
}

await main();
