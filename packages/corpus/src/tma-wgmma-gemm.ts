/**
 * The warp-specialised wgmma GEMM with TMA loads, in lowered TVMScript (`C = A·B`, fp16 A and B
 * row-major, fp32 C; the same function as `wgmmaGemm`). The shape of
 * `warpSpecializedWgmmaGemmScript` (128×256 block tiles, k stages of 64, two consumer warpgroups
 * of m64n256k16 wgmmas from 128B-swizzled shared memory, full and empty mbarriers per ring slot),
 * but one elected producer thread fills a stage with five TMA loads (ir's tensor-map.ts):
 *
 *     producer (warp 8, lane 0), k stage t in slot s = t % S, round r = t / S:
 *         wait empty[s] for parity (r + 1) % 2
 *         arrive_expect_tx(full[s], 48 KiB)                          # full[s] counts this one arrival
 *         TMA A's 128×64 box at (m0, 64t); TMA B's four 64×64 boxes at (64t, n0 + 64j)
 *     consumer warps 0–7:
 *         wait full[s] for parity r % 2; wgmma.fence; 4 wgmmas (k 16 each)
 *         wait_group 4 (stage t − 1's wgmmas retired); lane 0: arrive(empty[(t − 1) % S])   # counts 8
 *
 * TMA writes through the async proxy, as wgmma reads, so the consumers need no proxy fence (the
 * cp.async producer's kernel fences every stage). A's box lands as A's tile always did (row r's
 * 16-byte chunk c at chunk c ^ (r % 8)); B's 64-column panels land one after another (4096
 * elements each), so B's descriptor strides are 8192 bytes between panels and 1024 between 8-row
 * groups — CUTLASS's layout for an N-major operand with the 128B swizzle.
 *
 * `maxRegisters` adds `setmaxnreg`: the producer warpgroup gives registers back
 * (`setmaxnreg.dec`), the consumers take them (`setmaxnreg.inc`), as CUTLASS's warp-specialised
 * kernels do; `groupRows` rasterises the block order; `persistentBlocks` makes the blocks walk the
 * tiles with one ring; `consumerRows: 128` gives each consumer warpgroup 128 rows of a 256×128
 * tile. Hand-written lowered TIR, as its cp.async sibling; the kernel takes tensor maps of A and
 * B, which the runtime encodes (`build()` on cuda). On an H200 the plain kernel runs 1.24× / 1.32×
 * cuBLAS HGEMM at 2048³ / 4096³, 7–9% faster than the cp.async GEMM at 4096³
 * (docs/benchmarks/tensor-core-2026-11-30-s15; the persistent and 128-row forms are unmeasured).
 */
import { boxesOfTile } from "@tessera/ir";

export interface TmaWgmmaOptions {
  /** Shared ring slots (default 4; 48 KiB each). */
  readonly stages?: number;
  /** The global symbol (default `wgmma_tma_gemm`). */
  readonly name?: string;
  /** `setmaxnreg` budgets: the producer warpgroup's and the consumers' registers per thread (multiples of 8, 24 to 256). */
  readonly maxRegisters?: { readonly producer: number; readonly consumer: number };
  /**
   * Rasterised block order: consecutive blocks walk `groupRows` block rows down before moving one
   * block column right, so the blocks resident at once share B's columns as well as A's rows in L2
   * (default: row after row, each across all of N).
   */
  readonly groupRows?: number;
  /**
   * A persistent kernel: this many blocks (one an SM: 132 on an H100 or H200), each walking the
   * tiles `it · blocks + blockIdx.x`; the ring runs on across tiles, so the producer fills the next
   * tile's stages while the consumers store this one's C (default: one block a tile).
   */
  readonly persistentBlocks?: number;
  /**
   * Rows of C per consumer warpgroup: 64 (default; 128×256 block tiles, one m64n256k16 a k step)
   * or 128 (256×128 block tiles, two m64n128k16 a k step). Either way 128 accumulators a thread
   * and 48 KiB a stage.
   */
  readonly consumerRows?: 64 | 128;
}

const BK = 64;
/** B's boxes: 64×64 panels (a row of 64 fp16 is the 128-byte swizzle span). */
const B_BOX = [BK, 64] as const;

/** The kernel for n×n×n (n a multiple of 256), as lowering would leave it. */
export function tmaWgmmaGemmScript(n: number, opts: TmaWgmmaOptions = {}): string {
  const stages = opts.stages ?? 4;
  const rows = opts.consumerRows ?? 64;
  if (rows !== 64 && rows !== 128) throw new RangeError(`TMA wgmma GEMM: consumerRows must be 64 or 128, got ${String(rows)}`);
  // The block tile (two consumer warpgroups of `rows` rows), the wgmmas a k step per warpgroup, and one slot's A and B tiles.
  const [BM, BN, halves] = [2 * rows, rows === 64 ? 256 : 128, rows / 64];
  const [A_TILE, B_TILE] = [BM * BK, BK * BN];
  const A_BOX = [BM, BK] as const;
  const STAGE_BYTES = (A_TILE + B_TILE) * 2;
  if (!Number.isInteger(n) || n <= 0 || n % 256 !== 0) throw new RangeError(`TMA wgmma GEMM: n = ${n} is not a positive multiple of 256`);
  if (!Number.isInteger(stages) || stages < 1 || stages > 4) throw new RangeError(`TMA wgmma GEMM: stages must be 1 to 4 (48 KiB each), got ${stages}`);
  const regs = opts.maxRegisters;
  if (regs !== undefined)
    for (const r of [regs.producer, regs.consumer])
      if (!Number.isInteger(r) || r % 8 !== 0 || r < 24 || r > 256)
        throw new RangeError(`TMA wgmma GEMM: setmaxnreg takes a multiple of 8 from 24 to 256, got ${r}`);
  const steps = n / BK;
  const [blocksM, blocksN] = [n / BM, n / BN];
  const tiles = blocksM * blocksN;
  const group = opts.groupRows;
  if (group !== undefined && (!Number.isInteger(group) || group < 1 || blocksM % group !== 0))
    throw new RangeError(`TMA wgmma GEMM: groupRows must divide the ${blocksM} block rows, got ${group}`);
  const blocks = opts.persistentBlocks ?? tiles;
  if (!Number.isInteger(blocks) || blocks < 1 || blocks > tiles)
    throw new RangeError(`TMA wgmma GEMM: persistentBlocks must be 1 to the ${tiles} tiles, got ${blocks}`);
  const persistent = opts.persistentBlocks !== undefined;
  // The tile a block works on and the k stage's index in the block's whole stream of stages (the
  // ring slot and the parities follow it across tiles).
  const tile = persistent ? `(it * ${blocks} + blockIdx_x)` : "blockIdx_x";
  const g = persistent ? `(it * ${steps} + t)` : "t";
  const bar = (i: string) => `T.tvm_access_ptr(T.type_annotation("uint64"), bars, ${i}, 1, 3)`;
  const smem = (offset: string, extent: number) => `T.tvm_access_ptr(T.type_annotation("float16"), buf_dyn_shmem, ${offset}, ${extent}, 2)`;
  const m0 = group === undefined ? `${tile} // ${blocksN} * ${BM}` : `(${tile} // ${group * blocksN} * ${group} + ${tile} % ${group}) * ${BM}`;
  const n0 = group === undefined ? `${tile} % ${blocksN} * ${BN}` : `${tile} // ${group} % ${blocksN} * ${BN}`;
  const slot = `${g} % ${stages}`;
  const full = bar(slot);
  const aLoad = `T.ptx.cp_async_bulk_tensor_2d(${smem(`${slot} * ${A_TILE}`, A_TILE)}, A.data, ${A_BOX[1]}, ${A_BOX[0]}, 128, t * ${BK}, ${m0}, ${full})`;
  const bLoads = boxesOfTile("B", [BK, BN], B_BOX).map(
    ([, col]) =>
      `T.ptx.cp_async_bulk_tensor_2d(${smem(`${stages * A_TILE} + ${slot} * ${B_TILE} + ${col * BK}`, B_BOX[0] * B_BOX[1])}, B.data, ${B_BOX[1]}, ${B_BOX[0]}, 128, ${n0} + ${col}, t * ${BK}, ${full})`,
  );
  // The warp's own 16 rows of its warpgroup's `rows` (wgmma's A pointer convention), in 64-row half h.
  const warpRow = (h: number) => (rows === 64 ? "threadIdx_y * 16" : `threadIdx_y // 4 * ${rows} + ${h * 64} + threadIdx_y % 4 * 16`);
  const aPtr = (h: number) => `T.tvm_access_ptr(T.type_annotation("float16"), buf_dyn_shmem, ${slot} * ${A_TILE} + (${warpRow(h)}) * 64 + k1 * 16, 976, 1)`;
  // 16 k rows of every panel: from the first panel's k1-th 16-row slice to the end of the last's.
  const panels = BN / 64;
  const bPtr = `T.tvm_access_ptr(T.type_annotation("float16"), buf_dyn_shmem, ${stages * A_TILE} + ${slot} * ${B_TILE} + k1 * 1024, ${(panels - 1) * 4096 + 1024}, 1)`;
  const cPtr = (h: number) => `T.tvm_access_ptr(T.type_annotation("float32"), C.data, (${m0} + ${warpRow(h)}) * ${n} + ${n0} + j * 16, 4096, 2)`;
  const empty = (stage: string) => bar(`${stages} + ${stage} % ${stages}`);
  const producer = [
    "for t in range(STEPS):",
    `    T.ptx.mbarrier_wait_parity(${empty(g)}, (${g} // ${stages} + 1) % 2)`,
    `    T.ptx.mbarrier_arrive_expect_tx(${full}, ${STAGE_BYTES})`,
    ...[aLoad, ...bLoads].map((l) => `    ${l}`),
  ];
  const consumer = [
    "for j in range(16):",
    '    T.cuda.mma_fill_legacy(8, C_warp, j * 8, dtype="float32")',
    "for t in range(STEPS):",
    `    T.ptx.mbarrier_wait_parity(${full}, ${g} // ${stages} % 2)`,
    "    T.ptx.wgmma_fence()",
    "    for k1 in range(4):",
    ...Array.from(
      { length: halves },
      (_, h) =>
        `        T.ptx.wgmma_mma_async_ss("m64n${BN}k16", "fp16", "fp16", "fp32", 0, 1, 128, ${aPtr(h)}, 16, 1024, ${bPtr}, 8192, 1024, C_warp, ${h * 64})`,
    ),
    // One group a k step (both halves' wgmmas): this stage's four stay in flight (wait_group takes at most 7).
    "        T.ptx.wgmma_commit_group()",
    "    T.ptx.wgmma_wait_group(4, C_warp, 128)",
    "    if t > 0:",
    "        if threadIdx_x == 0:",
    `            T.ptx.mbarrier_arrive(${empty(`(${g} - 1)`)})`,
    "T.ptx.wgmma_wait_group(0, C_warp, 128)",
    // A persistent block's producer refills the last stage for the next tile: release it too.
    ...(persistent ? ["if threadIdx_x == 0:", `    T.ptx.mbarrier_arrive(${empty(`(it * ${steps} + ${steps - 1})`)})`] : []),
    ...Array.from({ length: halves }, (_, h) => [
      `for j in range(${BN / 16}):`,
      `    T.cuda.mma_store_legacy(16, 16, ${cPtr(h)}, C_warp, ${h * 64} + j * 8, ${n}, dtype="float32")`,
    ]).flat(),
  ];
  // A persistent block walks its tiles (it · blocks + blockIdx.x, while below the tile count).
  const perTile = (lines: string[]): string[] =>
    persistent ? [`for it in range(${Math.ceil(tiles / blocks)}):`, `    if ${tile} < ${tiles}:`, ...lines.map((l) => `        ${l}`)] : lines;
  const indent = (lines: string[], depth: number) => lines.map((l) => `${" ".repeat(depth)}${l.replaceAll("STEPS", String(steps))}`).join("\n");
  const producerRegs = regs === undefined ? "" : `\n        T.ptx.setmaxnreg_dec(${regs.producer})`;
  const consumerRegs = regs === undefined ? "" : `\n        T.ptx.setmaxnreg_inc(${regs.consumer})`;
  return `@T.prim_func
def main(A: T.Buffer((${n}, ${n}), "float16"), B: T.Buffer((${n}, ${n}), "float16"), C: T.Buffer((${n}, ${n}), "float32")):
    T.func_attr({"global_symbol": "${opts.name ?? "wgmma_tma_gemm"}", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", ${blocks})
    buf_dyn_shmem = T.allocate([${stages * (A_TILE + B_TILE)}], "float16", "shared.dyn")
    bars = T.allocate([${2 * stages}], "uint64", "shared")
    C_warp = T.allocate([128], "float32", "local")
    threadIdx_y = T.launch_thread("threadIdx.y", 12)
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    if threadIdx_y == 0:
        if threadIdx_x == 0:
            for i in range(${stages}):
                T.ptx.mbarrier_init(${bar("i")}, 1)
                T.ptx.mbarrier_init(${bar(`${stages} + i`)}, 8)
    T.tvm_storage_sync("shared")
    if threadIdx_y >= 8:${producerRegs}
        if threadIdx_y == 8:
            if threadIdx_x == 0:
${indent(perTile(producer), 16)}
    if threadIdx_y < 8:${consumerRegs}
${indent(perTile(consumer), 8)}
`;
}
