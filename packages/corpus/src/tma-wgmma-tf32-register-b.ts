/**
 * The TMA tf32 GEMM without the Bᵀ pre-pass, in lowered TVMScript (`C = tf32(A)·tf32(B)` of
 * row-major float32 A and B; A truncated as the tensor cores read it, B rounded). tf32 wgmmas read
 * shared-memory operands K-major only, and B is N-major, so the kernel computes Cᵀ = Bᵀ·Aᵀ with the
 * register-A wgmma (`T.ptx.wgmma_mma_async_rs`): its A operand is Bᵀ (rows n, k), which the
 * consumers load into registers from B's TMA boxes as they landed (N-major: any layout suits
 * registers) and round on the way (`T.tf32_round`); its B operand is Aᵀ, i.e. A's box as it lands
 * (K-major), read through a descriptor as `tmaWgmmaGemmScript`'s tf32 form reads Bᵀ. The ring, the
 * producer thread and the barriers are that kernel's:
 *
 *     producer (warp 8, lane 0), k stage t of 32 in slot s = t % S:
 *         wait empty[s]; arrive_expect_tx(full[s], 48 KiB)
 *         TMA A's 256×32 box at (m0, 32t); B's four 32×32 boxes at (32t, n0 + 32j)
 *     consumer warps 0–7 (warpgroup g = columns n0 + 64g… of C), stage t with fragment set u = t % 2:
 *         wait full[s]; load + round their Bᵀ fragments of the stage's four k steps into set u
 *         wgmma.fence; 4 × m64n256k8 (A: set u, B: A's box), one group each
 *         wait_group 4 (stage t − 1 retired: set 1 − u is free for stage t + 1); lane 0: arrive(empty[(t − 1) % S])
 *
 * The stage loop is unrolled by two so that each fragment set is its own registers. The
 * accumulator holds Cᵀ's 64×256 tile a warpgroup; the epilogue stores it transposed, one float a
 * register (each warp store writes four 32-byte row segments of C). 256×128 block tiles.
 *
 * `persistentBlocks` makes the blocks walk the tiles (`it · blocks + blockIdx.x`) with one ring, as
 * `tmaWgmmaGemmScript`'s persistent form does: the slot and the parities follow the block's whole
 * stream of k stages, the consumers release a tile's last stage after its final wait, and the
 * producer fills the next tile's first stages while the consumers store this tile's C.
 */

export interface TmaWgmmaTf32RegisterBOptions {
  /** Shared ring slots (default 4; 48 KiB each). */
  readonly stages?: number;
  /** The global symbol (default `wgmma_tma_tf32_rb_gemm`). */
  readonly name?: string;
  /** `setmaxnreg` budgets of the producer warpgroup and the consumers (default 40 and 232: the consumers hold 128 accumulators and 32 fragment registers). */
  readonly maxRegisters?: { readonly producer: number; readonly consumer: number };
  /** Rasterised block order: groups of this many block rows (default none). */
  readonly groupRows?: number;
  /** A persistent kernel of this many blocks (one an SM: 132 on an H100 or H200), each walking the tiles (default: one block a tile). */
  readonly persistentBlocks?: number;
}

/** C's block tile: rows (the wgmma's N) and columns (two warpgroups of 64, the wgmma's M); a k stage of 32 float32 (the 128-byte swizzle span). */
const [BM, BN, BK] = [256, 128, 32];
/** B's boxes: 32 k rows × 32 columns (one swizzle span), four a stage. */
const B_BOX = 32;
const K = 8;
const [A_TILE, B_TILE] = [BM * BK, BK * BN];

/** The kernel for n×n×n (n a multiple of 256). */
export function tmaWgmmaTf32RegisterBScript(n: number, opts: TmaWgmmaTf32RegisterBOptions = {}): string {
  const stages = opts.stages ?? 4;
  const regs = opts.maxRegisters ?? { producer: 40, consumer: 232 };
  if (!Number.isInteger(n) || n <= 0 || n % BM !== 0) throw new RangeError(`TMA tf32 register-B GEMM: n = ${n} is not a positive multiple of ${BM}`);
  if (!Number.isInteger(stages) || stages < 1 || stages > 4)
    throw new RangeError(`TMA tf32 register-B GEMM: stages must be 1 to 4 (48 KiB each), got ${stages}`);
  for (const r of [regs.producer, regs.consumer])
    if (!Number.isInteger(r) || r % 8 !== 0 || r < 24 || r > 256)
      throw new RangeError(`TMA tf32 register-B GEMM: setmaxnreg takes a multiple of 8 from 24 to 256, got ${r}`);
  const steps = n / BK;
  const [blocksM, blocksN] = [n / BM, n / BN];
  const group = opts.groupRows;
  if (group !== undefined && (!Number.isInteger(group) || group < 1 || blocksM % group !== 0))
    throw new RangeError(`TMA tf32 register-B GEMM: groupRows must divide the ${blocksM} block rows, got ${group}`);
  const tiles = blocksM * blocksN;
  const blocks = opts.persistentBlocks ?? tiles;
  if (!Number.isInteger(blocks) || blocks < 1 || blocks > tiles)
    throw new RangeError(`TMA tf32 register-B GEMM: persistentBlocks must be 1 to the ${tiles} tiles, got ${blocks}`);
  const persistent = opts.persistentBlocks !== undefined;
  // The tile a block works on, and a k stage's index in the block's whole stream of stages (the ring
  // slot and the parities follow it across tiles; `steps` is even, so the fragment sets alternate too).
  const tile = persistent ? `(it * ${blocks} + blockIdx_x)` : "blockIdx_x";
  const stream = (t: string) => (persistent ? `(it * ${steps} + ${t})` : t);
  const m0 = group === undefined ? `${tile} // ${blocksN} * ${BM}` : `(${tile} // ${group * blocksN} * ${group} + ${tile} % ${group}) * ${BM}`;
  const n0 = group === undefined ? `${tile} % ${blocksN} * ${BN}` : `${tile} // ${group} % ${blocksN} * ${BN}`;
  const bar = (i: string) => `T.tvm_access_ptr(T.type_annotation("uint64"), bars, ${i}, 1, 3)`;
  const smem = (offset: string, extent: number) => `T.tvm_access_ptr(T.type_annotation("float32"), buf_dyn_shmem, ${offset}, ${extent}, 2)`;
  const slot = (t: string) => `${t} % ${stages}`;
  const full = (t: string) => bar(slot(t));
  const empty = (t: string) => bar(`${stages} + ${t} % ${stages}`);
  const bBase = (t: string) => `${stages * A_TILE} + ${slot(t)} * ${B_TILE}`;
  const g = stream("t");
  const producer = [
    `for t in range(${steps}):`,
    `    T.ptx.mbarrier_wait_parity(${empty(g)}, (${g} // ${stages} + 1) % 2)`,
    `    T.ptx.mbarrier_arrive_expect_tx(${full(g)}, ${(A_TILE + B_TILE) * 4})`,
    `    T.ptx.cp_async_bulk_tensor_2d(${smem(`${slot(g)} * ${A_TILE}`, A_TILE)}, A.data, ${BK}, ${BM}, 128, t * ${BK}, ${m0}, ${full(g)})`,
    ...Array.from(
      { length: BN / B_BOX },
      (_, j) =>
        `    T.ptx.cp_async_bulk_tensor_2d(${smem(`${bBase(g)} + ${j * B_BOX * BK}`, B_BOX * BK)}, B.data, ${B_BOX}, ${BK}, 128, ${n0} + ${j * B_BOX}, t * ${BK}, ${full(g)})`,
    ),
  ];
  // Bᵀ's register fragment (the wgmma's A, 32-bit types): register r of lane l holds row l/4 + 8·(r%2)
  // of the warp's 16 (column n0 + 16·threadIdx_y + … of C), k l%4 + 4·(r/2) of the k step. Column
  // c of the block's 128 is in box c / 32, 16-byte chunk (c % 32) / 4 swizzled by k % 8.
  const fragment = (t: string, u: number) => [
    "for k1 in T.unroll(4):",
    "    for r in T.unroll(4):",
    `        B_frag_1[${u * 16} + k1 * 4 + r] = T.tf32_round(buf_dyn_shmem_1[${bBase(t)} + threadIdx_y // 2 * ${B_BOX * BK} + (k1 * ${K} + threadIdx_x % 4 + r // 2 * 4) * ${B_BOX} + T.bitwise_xor(threadIdx_y % 2 * 4 + r % 2 * 2 + threadIdx_x // 16, threadIdx_x % 4 + r // 2 * 4) * 4 + threadIdx_x // 4 % 4])`,
  ];
  // Aᵀ as the wgmma's B: A's 256×32 box, K-major, the k1-th 8 columns of every row.
  const aDesc = (t: string) => `T.tvm_access_ptr(T.type_annotation("float32"), buf_dyn_shmem, ${slot(t)} * ${A_TILE} + k1 * ${K}, ${(BM - 1) * BK + K}, 1)`;
  const stage = (u: number) => {
    const t = stream(`(t2 * 2 + ${u})`);
    return [
      `T.ptx.mbarrier_wait_parity(${full(t)}, ${t} // ${stages} % 2)`,
      ...fragment(t, u),
      "T.ptx.wgmma_fence()",
      "for k1 in range(4):",
      `    T.ptx.wgmma_mma_async_rs("m64n${BM}k8", "tf32", "tf32", "fp32", 0, 128, B_frag, ${u * 16} + k1 * 4, ${aDesc(t)}, 16, 1024, C_warp, 0)`,
      "    T.ptx.wgmma_commit_group()",
      "T.ptx.wgmma_wait_group(4, C_warp, 128, B_frag, 32)",
      ...(u === 0
        ? ["if t2 > 0:", "    if threadIdx_x == 0:", `        T.ptx.mbarrier_arrive(${empty(`(${t} - 1)`)})`]
        : ["if threadIdx_x == 0:", `    T.ptx.mbarrier_arrive(${empty(`(${t} - 1)`)})`]),
    ];
  };
  // Register r of lane l is Cᵀ's row l/4 + 8·((r/2)%2) (C's column), column 8·(r/4) + 2·(l%4) + r%2 (C's row).
  const consumer = [
    "for j in range(16):",
    '    T.cuda.mma_fill_legacy(8, C_warp, j * 8, dtype="float32")',
    `for t2 in range(${steps / 2}):`,
    ...[0, 1].flatMap((u) => stage(u).map((l) => `    ${l}`)),
    "T.ptx.wgmma_wait_group(0, C_warp, 128, B_frag, 32)",
    // A persistent block's producer refills the tile's last stage for the next tile: release it too.
    ...(persistent ? ["if threadIdx_x == 0:", `    T.ptx.mbarrier_arrive(${empty(stream(String(steps - 1)))})`] : []),
    "for r in T.unroll(128):",
    `    C_1[(${m0} + r // 4 * 8 + threadIdx_x % 4 * 2 + r % 2) * ${n} + ${n0} + threadIdx_y * 16 + threadIdx_x // 4 + r // 2 % 2 * 8] = C_warp_1[r]`,
  ];
  const indent = (lines: string[], depth: number) => lines.map((l) => `${" ".repeat(depth)}${l}`).join("\n");
  // A persistent block walks its tiles (it · blocks + blockIdx.x, while below the tile count).
  const perTile = (lines: string[]): string[] =>
    persistent ? [`for it in range(${Math.ceil(tiles / blocks)}):`, `    if ${tile} < ${tiles}:`, ...lines.map((l) => `        ${l}`)] : lines;
  return `@T.prim_func
def main(A: T.Buffer((${n}, ${n}), "float32"), B: T.Buffer((${n}, ${n}), "float32"), C: T.Buffer((${n}, ${n}), "float32")):
    T.func_attr({"global_symbol": "${opts.name ?? "wgmma_tma_tf32_rb_gemm"}", "tir.noalias": T.bool(True)})
    C_1 = T.Buffer((${n * n},), data=C.data)
    blockIdx_x = T.launch_thread("blockIdx.x", ${blocks})
    buf_dyn_shmem = T.allocate([${stages * (A_TILE + B_TILE)}], "float32", "shared.dyn")
    buf_dyn_shmem_1 = T.Buffer((${stages * (A_TILE + B_TILE)},), data=buf_dyn_shmem, scope="shared.dyn")
    bars = T.allocate([${2 * stages}], "uint64", "shared")
    C_warp = T.allocate([128], "float32", "local")
    C_warp_1 = T.Buffer((128,), data=C_warp, scope="local")
    B_frag = T.allocate([32], "float32", "local")
    B_frag_1 = T.Buffer((32,), data=B_frag, scope="local")
    threadIdx_y = T.launch_thread("threadIdx.y", 12)
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    if threadIdx_y == 0:
        if threadIdx_x == 0:
            for i in range(${stages}):
                T.ptx.mbarrier_init(${bar("i")}, 1)
                T.ptx.mbarrier_init(${bar(`${stages} + i`)}, 8)
    T.tvm_storage_sync("shared")
    if threadIdx_y >= 8:
        T.ptx.setmaxnreg_dec(${regs.producer})
        if threadIdx_y == 8:
            if threadIdx_x == 0:
${indent(perTile(producer), 16)}
    if threadIdx_y < 8:
        T.ptx.setmaxnreg_inc(${regs.consumer})
${indent(perTile(consumer), 8)}
`;
}
