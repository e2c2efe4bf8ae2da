/**
 * The column layout of a per-store feature row, so that a row can be printed by name
 * (`describeFeatureRow`); the groups are listed in docs/architecture/meta-schedule-notes.md.
 */
import { ARITH_CLASSES } from "./op-counts.js";

/** Buffers described per row (the most line-hungry first), as TVM's `buffers_per_store`. */
export const BUFFERS_PER_STORE = 5;
/** Samples of the arithmetic-intensity curve. */
export const ARITH_INTENSITY_SAMPLES = 10;
/** TVM's cache line size for the `lines` features. */
export const CACHE_LINE_BYTES = 64;

export const LOOP_POSITIONS = ["none", "inner_spatial", "middle_spatial", "outer_spatial", "inner_reduce", "middle_reduce", "outer_reduce", "mixed"] as const;
export type LoopPosition = (typeof LOOP_POSITIONS)[number];

export const ANNOTATED_LOOP_KINDS = ["vec", "unroll", "parallel"] as const;

export const GPU_FEATURES = [
  "is_gpu",
  "blockIdx_x_len",
  "blockIdx_y_len",
  "blockIdx_z_len",
  "threadIdx_x_len",
  "threadIdx_y_len",
  "threadIdx_z_len",
  "vthread_len",
] as const;

export const BUFFER_FEATURES = [
  "acc_type_read",
  "acc_type_write",
  "acc_type_read_write",
  "bytes",
  "unique_bytes",
  "lines",
  "unique_lines",
  "reuse_type_loop_multiple_read",
  "reuse_type_serial_multiple_read_write",
  "reuse_type_no_reuse",
  "reuse_dis_iter",
  "reuse_dis_bytes",
  "reuse_ct",
  "bytes_d_reuse_ct",
  "unique_bytes_d_reuse_ct",
  "lines_d_reuse_ct",
  "unique_lines_d_reuse_ct",
  "stride",
  // Tessera: where the buffer lives and how one warp touches it.
  "scope_global",
  "scope_shared",
  "scope_local",
  /** Bytes one thread moves per access (vectorized loop of unit stride × element size). */
  "vector_bytes",
  /** Element stride between neighbouring threadIdx.x (coalescing, bank spread). */
  "thread_x_stride",
  /** Per warp-wide access: 32-byte sectors (global) or shared-memory wavefronts (bank conflicts). */
  "warp_transactions",
] as const;

export const ALLOC_FEATURES = ["alloc_size", "alloc_prod", "alloc_outer_prod", "alloc_inner_prod"] as const;

export const OUTER_FEATURES = ["outer_prod", "num_loops", "auto_unroll_max_step"] as const;

export const KERNEL_FEATURES = [
  "kernel_threads",
  "kernel_shared_bytes",
  "kernel_local_bytes",
  "kernel_min_blocks_per_sm",
  "unroll_explicit",
  "pipeline_stages",
  "pipeline_async_stages",
  "storage_align_pad_bytes",
] as const;

function buildNames(): string[] {
  const names: string[] = [...ARITH_CLASSES];
  for (const kind of ANNOTATED_LOOP_KINDS) {
    names.push(`${kind}_num`, `${kind}_prod`, `${kind}_len`, ...LOOP_POSITIONS.map((p) => `${kind}_pos_${p}`));
  }
  names.push(...GPU_FEATURES);
  for (let b = 0; b < BUFFERS_PER_STORE; b++) names.push(...BUFFER_FEATURES.map((f) => `B${b}.${f}`));
  for (let k = 0; k < ARITH_INTENSITY_SAMPLES; k++) names.push(`arith_intensity_curve_${k}`);
  names.push(...ALLOC_FEATURES, ...OUTER_FEATURES, ...KERNEL_FEATURES);
  return names;
}

const NAMES: readonly string[] = buildNames();

/** The name of every column of a per-store feature row, in order. */
export function featureNames(): readonly string[] {
  return NAMES;
}

export const PER_STORE_FEATURE_LENGTH = NAMES.length;

/** `name = value` lines for the non-zero columns of a row (all columns with `all`). */
export function describeFeatureRow(row: Float64Array, opts: { all?: boolean } = {}): string {
  if (row.length !== NAMES.length) throw new RangeError(`describeFeatureRow: the row has ${row.length} columns, the per-store layout has ${NAMES.length}`);
  const lines: string[] = [];
  row.forEach((v, k) => {
    if (v !== 0 || opts.all === true) lines.push(`${NAMES[k]} = ${Number.isInteger(v) ? v : v.toFixed(4)}`);
  });
  return lines.join("\n");
}
