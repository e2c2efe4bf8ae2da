/**
 * A warp-specialised copy pipeline in lowered TVMScript: one producer thread streams tiles of A
 * into a `stages`-deep ring of shared buffers with bulk asynchronous copies (`T.ptx.cp_async_bulk`),
 * consumer warps wait for each tile on its "full" mbarrier and hand the stage back through its
 * "empty" mbarrier (the order of CUTLASS's sm90 warp-specialised mainloop):
 *
 *     producer (thread 0), tile k in stage s = k % stages, round r = k / stages:
 *         wait empty[s] for parity (r + 1) % 2      # the consumers released round r − 1
 *         arrive_expect_tx(full[s], tile bytes); cp_async_bulk(stage s, tile k, full[s])
 *     consumers (warps 1…), tile k:
 *         wait full[s] for parity r % 2; use stage s; arrive(empty[s])
 *
 * With `producer: "cp.async"` warp 0 fills the stage instead, each lane with 16-byte cp.async
 * copies followed by `T.ptx.cp_async_mbarrier_arrive(full[s])` (the full barrier counts 32).
 *
 * For tile k, consumer thread t writes B[k, t, :] = 2 · A[k, threads − 1 − t, :], data another
 * thread's part of the copy brought. The options plant the mistakes the simulator must catch.
 */

export interface BulkCopyPipelineOptions {
  /** Shared stages in the ring (default 2). */
  readonly stages?: number;
  /** Tiles streamed (default 6). */
  readonly tiles?: number;
  /** Consumer warps (default 2). */
  readonly consumerWarps?: number;
  /** Floats per consumer thread per tile (default 2). */
  readonly lanes?: number;
  /** The consumers' wait on the full barrier: `exact` (default), `missing`, or `wrong-parity`. */
  readonly fullWait?: "exact" | "missing" | "wrong-parity";
  /** The producer's wait on the empty barrier: `exact` (default) or `missing`. */
  readonly emptyWait?: "exact" | "missing";
  /** Whether the consumers arrive on the empty barrier after using a stage (default true). */
  readonly release?: boolean;
  /**
   * How the producer fills a stage: `bulk` (default: thread 0, one `cp.async.bulk` completing on the
   * full barrier, count 1) or `cp.async` (warp 0, 16-byte cp.async copies per lane, each lane
   * arriving with `cp.async.mbarrier.arrive.noinc`, count 32; the tile must be whole 16-byte pieces
   * per lane).
   */
  readonly producer?: "bulk" | "cp.async";
  /** The global symbol (default `bulk_copy`). */
  readonly name?: string;
}

interface Shape {
  readonly stages: number;
  readonly tiles: number;
  readonly consumers: number;
  readonly lanes: number;
  readonly tile: number;
}

function shapeOf(o: BulkCopyPipelineOptions): Shape {
  const [stages, tiles, warps, lanes] = [o.stages ?? 2, o.tiles ?? 6, o.consumerWarps ?? 2, o.lanes ?? 2];
  for (const [what, v] of Object.entries({ stages, tiles, consumerWarps: warps, lanes }))
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`bulk copy pipeline: ${what} must be a positive integer, got ${v}`);
  const tile = warps * 32 * lanes;
  if ((tile * 4) % 16 !== 0) throw new RangeError(`bulk copy pipeline: a tile of ${tile} floats is not a whole number of 16-byte granules`);
  if (o.producer === "cp.async" && tile % (4 * 32) !== 0)
    throw new RangeError(`bulk copy pipeline: a tile of ${tile} floats is not whole 16-byte cp.async pieces for the 32 producer lanes`);
  return { stages, tiles, consumers: warps * 32, lanes, tile };
}

/** The mbarrier `bars[i]` (full barriers at 0…S − 1, empty ones at S…2S − 1; S is replaced by the stage count). */
const bar = (i: string) => `T.tvm_access_ptr(T.type_annotation("uint64"), bars, ${i}, 1, 3)`;

/** The kernel in TVMScript, as lowering would leave it (thread bindings launched, buffers flat). */
export function loweredBulkCopyScript(opts: BulkCopyPipelineOptions = {}): string {
  const s = shapeOf(opts);
  const bytes = s.tile * 4;
  const fullParity = opts.fullWait === "wrong-parity" ? "(k // S + 1) % 2" : "k // S % 2";
  const emptyWait = opts.emptyWait === "missing" ? [] : [`        T.ptx.mbarrier_wait_parity(${bar("S + k % S")}, (k // S + 1) % 2)`];
  const cpAsync = opts.producer === "cp.async";
  // cp.async: every producer lane copies 16-byte pieces (4 floats) c·32 + lane of the tile, then arrives.
  const pieces = s.tile / 4 / 32;
  const producer = cpAsync
    ? [
        "if threadIdx_x < 32:",
        `    for k in range(${s.tiles}):`,
        ...emptyWait,
        `        for c in range(${pieces}):`,
        `            T.ptx_cp_async("float32", A_shared, k % S * ${s.tile} + (c * 32 + threadIdx_x) * 4, A.data, k * ${s.tile} + (c * 32 + threadIdx_x) * 4, 16)`,
        `        T.ptx.cp_async_mbarrier_arrive(${bar("k % S")})`,
      ]
    : [
        "if threadIdx_x == 0:",
        `    for k in range(${s.tiles}):`,
        ...emptyWait,
        `        T.ptx.mbarrier_arrive_expect_tx(${bar("k % S")}, ${bytes})`,
        `        T.ptx.cp_async_bulk(T.tvm_access_ptr(T.type_annotation("float32"), A_shared, k % S * ${s.tile}, ${s.tile}, 2), T.tvm_access_ptr(T.type_annotation("float32"), A.data, k * ${s.tile}, ${s.tile}, 1), ${bytes}, ${bar("k % S")})`,
      ];
  const c = "(threadIdx_x - 32)";
  const consumer = [
    "if threadIdx_x >= 32:",
    `    for k in range(${s.tiles}):`,
    ...(opts.fullWait === "missing" ? [] : [`        T.ptx.mbarrier_wait_parity(${bar("k % S")}, ${fullParity})`]),
    `        for j in range(${s.lanes}):`,
    `            B[k * ${s.tile} + ${c} * ${s.lanes} + j] = A_shared_1[k % S * ${s.tile} + (${s.consumers - 1} - ${c}) * ${s.lanes} + j] * T.float32(2)`,
    ...(opts.release === false ? [] : [`        T.ptx.mbarrier_arrive(${bar("S + k % S")})`]),
  ];
  const body = [
    "if threadIdx_x == 0:",
    "    for i in range(S):",
    `        T.ptx.mbarrier_init(${bar("i")}, ${cpAsync ? 32 : 1})`,
    `        T.ptx.mbarrier_init(${bar("S + i")}, ${s.consumers})`,
    'T.tvm_storage_sync("shared")',
    ...producer,
    ...consumer,
  ];
  return [
    "@T.prim_func",
    `def main(A: T.Buffer((${s.tiles * s.tile},), "float32"), B: T.Buffer((${s.tiles * s.tile},), "float32")):`,
    `    T.func_attr({"global_symbol": "${opts.name ?? "bulk_copy"}", "tir.noalias": T.bool(True)})`,
    '    blockIdx_x = T.launch_thread("blockIdx.x", 1)',
    `    A_shared = T.allocate([${s.stages * s.tile}], "float32", "shared")`,
    `    A_shared_1 = T.Buffer((${s.stages * s.tile},), data=A_shared, scope="shared")`,
    `    bars = T.allocate([${2 * s.stages}], "uint64", "shared")`,
    `    threadIdx_x = T.launch_thread("threadIdx.x", ${32 + s.consumers})`,
    ...body.map((l) => `    ${l}`),
    "",
  ]
    .join("\n")
    .replaceAll(/\bS\b/g, String(s.stages));
}

/** What the pipeline computes, as a plain loop nest for the sequential executor. */
export function bulkCopyReferenceScript(opts: BulkCopyPipelineOptions = {}): string {
  const s = shapeOf(opts);
  const n = s.tiles * s.tile;
  return [
    "@T.prim_func",
    `def main(A: T.Buffer((${n},), "float32"), B: T.Buffer((${n},), "float32")):`,
    `    T.func_attr({"global_symbol": "${opts.name ?? "bulk_copy"}"})`,
    `    for k, t, j in T.grid(${s.tiles}, ${s.consumers}, ${s.lanes}):`,
    `        B[k * ${s.tile} + t * ${s.lanes} + j] = A[k * ${s.tile} + (${s.consumers - 1} - t) * ${s.lanes} + j] * T.float32(2)`,
    "",
  ].join("\n");
}
