/**
 * The workloads of `bench:gpu`, built from the corpus schedules through `build()`: sizes for the
 * GPU run and for the dry run (the same checks in the simulator, at sizes it runs in seconds),
 * work counts for GFLOP/s and GB/s, and the host references of the element-wise ones.
 */
import { FAST_PARAMS, fastSchedule, manualSchedule, naiveSchedule, pipelinedGemmSchedule, vectorAddSchedule, windowSumSchedule } from "@tessera/corpus";
import type { Schedule } from "@tessera/schedule";
import type { BuildInput } from "../src/index.js";

export type WorkloadKind = "vector_add" | "window_sum" | "gemm";

export interface Workload {
  readonly id: string;
  readonly kind: WorkloadKind;
  readonly label: string;
  /** e.g. "2^24 fp32", "2048³ fp32". */
  readonly size: string;
  /** Problem size: elements for element-wise workloads, M = N = K for gemm. */
  readonly n: number;
  readonly schedule: () => BuildInput;
  readonly flops: number;
  /** Bytes a perfect kernel moves to and from global memory once. */
  readonly bytes: number;
  /** The same schedule at a size the simulator's bank-conflict model runs in seconds (kernels with shared memory). */
  readonly bankModel?: { readonly size: string; readonly schedule: () => Schedule };
}

/** Fetches of A and B (stage 0) issued as cp.async two chunks ahead of the compute (stage 2). */
const ASYNC_PIPELINE = { stages: [0, 0, 2], order: [0, 1, 2], asyncStages: [0] } as const;

/** The size at which the bank-conflict model simulates a GEMM schedule: its tiles fix the per-instruction conflicts. */
const BANK_MODEL_N = 256;

function pow2Label(n: number): string {
  const e = Math.log2(n);
  return Number.isInteger(e) ? `2^${e}` : String(n);
}

export function workloads(dryRun: boolean): Workload[] {
  const vec = dryRun ? 1 << 12 : 1 << 24;
  const naive = dryRun ? 64 : 2048;
  const manual = dryRun ? 128 : 2048;
  const fast = dryRun ? 256 : 2048;
  const p = FAST_PARAMS;
  return [
    {
      id: "vector_add",
      kind: "vector_add",
      label: "vector add (build, 256 threads/block)",
      size: `${pow2Label(vec)} fp32`,
      n: vec,
      schedule: () => vectorAddSchedule(vec, 256),
      flops: vec,
      bytes: 3 * 4 * vec,
    },
    {
      id: "window_sum",
      kind: "window_sum",
      label: "window sum (build, shared stage, 256 threads/block)",
      size: `${pow2Label(vec)} fp32`,
      n: vec,
      schedule: () => windowSumSchedule(vec, 256),
      flops: 2 * vec,
      bytes: 4 * (vec + 2) + 4 * vec,
    },
    {
      id: "gemm_naive",
      kind: "gemm",
      label: "naive schedule gemm+relu+add (build, 32×32 tiles)",
      size: `${naive}³ fp32`,
      n: naive,
      schedule: () => naiveSchedule(naive),
      flops: 2 * naive ** 3,
      bytes: 4 * 4 * naive * naive,
    },
    {
      id: "gemm_manual",
      kind: "gemm",
      label: "manual schedule gemm+relu+add (build, 64/64/64, 4×4 per thread)",
      size: `${manual}³ fp32`,
      n: manual,
      schedule: () => manualSchedule(manual),
      flops: 2 * manual ** 3,
      bytes: 4 * 4 * manual * manual,
      bankModel: { size: `${Math.min(manual, BANK_MODEL_N)}³ fp32`, schedule: () => manualSchedule(Math.min(manual, BANK_MODEL_N)) },
    },
    {
      // The cp.async path on real hardware: a 3-stage asynchronous pipeline (sm_80+).
      id: "gemm_async",
      kind: "gemm",
      label: "pipelined gemm+relu+add (build, 64×64×8, cp.async, 3 stages)",
      size: `${manual}³ fp32`,
      n: manual,
      schedule: () => pipelinedGemmSchedule(manual, ASYNC_PIPELINE),
      flops: 2 * manual ** 3,
      bytes: 4 * 4 * manual * manual,
    },
    {
      id: "gemm_fast",
      kind: "gemm",
      label: `fast schedule gemm+relu+add (build, ${p.blockRows}×${p.blockCols}×${p.tileK}, ${p.vthreadRows}×${p.vthreadCols} vthreads of ${p.threadRows}×${p.threadCols}, pipelined)`,
      size: `${fast}³ fp32`,
      n: fast,
      schedule: () => fastSchedule(fast),
      flops: 2 * fast ** 3,
      bytes: 4 * 4 * fast * fast,
      bankModel: { size: `${Math.min(fast, BANK_MODEL_N)}³ fp32`, schedule: () => fastSchedule(Math.min(fast, BANK_MODEL_N)) },
    },
  ];
}

/** The host reference of an element-wise workload, in float64, from its inputs (in parameter order). */
export function elementwiseReference(kind: "vector_add" | "window_sum", inputs: readonly Float32Array[], n: number): Float64Array {
  const out = new Float64Array(n);
  const a = inputs[0] as Float32Array;
  if (kind === "vector_add") {
    const b = inputs[1] as Float32Array;
    for (let i = 0; i < n; i++) out[i] = (a[i] as number) + (b[i] as number);
  } else {
    for (let i = 0; i < n; i++) out[i] = (a[i] as number) + (a[i + 1] as number) + (a[i + 2] as number);
  }
  return out;
}

/** Fresh uniform values in [-1, 1] (xorshift32 from `seed`). */
export function randomUniform(n: number, seed: number): Float32Array {
  let s = seed >>> 0 || 1;
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    a[i] = ((s >>> 0) / 0xffffffff) * 2 - 1;
  }
  return a;
}

export interface CheckResult {
  readonly ok: boolean;
  readonly elements: number;
  readonly mismatches: number;
  /** Outputs still NaN (never written). */
  readonly unwritten: number;
  readonly maxAbsError: number;
  readonly summary: string;
}

/** Every output within atol + rtol·|ref| (NaN never matches). */
export function checkOutput(got: Float32Array, ref: Float64Array, rtol: number, atol: number, what: string): CheckResult {
  let mismatches = 0;
  let unwritten = 0;
  let maxAbs = 0;
  let first = "";
  for (let i = 0; i < ref.length; i++) {
    const g = got[i] as number;
    const r = ref[i] as number;
    if (Number.isNaN(g)) unwritten++;
    const d = Math.abs(g - r);
    if (!(d <= atol + rtol * Math.abs(r))) {
      if (mismatches === 0) first = `; first at ${i}: ${g} vs ${r}`;
      mismatches++;
    } else if (d > maxAbs) maxAbs = d;
  }
  const ok = mismatches === 0 && got.length === ref.length;
  const summary = ok
    ? `PASS: all ${ref.length} outputs vs ${what}, rtol=atol=${rtol}, max |Δ| ${maxAbs.toExponential(2)}`
    : `FAIL: ${mismatches} of ${ref.length} outputs vs ${what} (${unwritten} unwritten)${first}`;
  return { ok, elements: ref.length, mismatches, unwritten, maxAbsError: maxAbs, summary };
}
