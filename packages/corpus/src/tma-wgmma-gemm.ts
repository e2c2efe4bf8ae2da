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
 *
 * `operands: "tf32"` makes the same kernel a tf32 GEMM (float32 in memory, m64nNk8 tf32 wgmmas,
 * float32 sums): a k stage is 32 float32 (the 128-byte swizzle span, as 64 fp16 are), so the
 * boxes are 32 elements wide and a stage is four k-8 wgmmas instead of four k-16 ones, 48 KiB as
 * before. PTX reads 32-bit wgmma operands K-major only (no transpose for tf32 in shared memory),
 * and TMA copies rows as they are, so the kernel reads B as Bᵀ (`Bt[j, k]`, K-major, one
 * BN×32 box a stage, descriptors as A's); `tmaWgmmaTf32Plan` puts a transposing pre-pass
 * (transpose-script.ts) before it. The wgmmas read the raw float32 and truncate it to tf32, as
 * cuBLAS's TF32 GEMM does: the function is `truncatingTf32Gemm` (T.tf32_truncate), not
 * `tf32Gemm`'s rounding.
 */
import { type PrimFunc, boxesOfTile, parsePrimFunc } from "@tessera/ir";
import { transposeScript } from "./transpose-script.js";
import { truncatingTf32Gemm } from "./tf32-gemm.js";

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
  /**
   * fp16 A and B (default) or tf32: float32 A and Bᵀ (the kernel's second parameter `Bt[j, k]`,
   * K-major) read by m64nNk8 tf32 wgmmas, which truncate them to tf32.
   */
  readonly operands?: "float16" | "tf32";
}

/** What the operand type changes: the stored dtype, the wgmma's type and k, and B's majorness in shared memory. */
interface OperandFormat {
  readonly storage: "float16" | "float32";
  readonly bytes: number;
  readonly wgmmaType: "fp16" | "tf32";
  /** k of one wgmma. */
  readonly k: number;
  /** The kernel's B parameter: B[k, j] (N-major, fp16 wgmma transposes it) or Bᵀ[j, k] (K-major). */
  readonly b: "B" | "Bt";
}

const FORMATS: Readonly<Record<"float16" | "tf32", OperandFormat>> = {
  float16: { storage: "float16", bytes: 2, wgmmaType: "fp16", k: 16, b: "B" },
  tf32: { storage: "float32", bytes: 4, wgmmaType: "tf32", k: 8, b: "Bt" },
};

/** The 128-byte swizzle span: one row of every box (and the k of a stage). */
const SWIZZLE_BYTES = 128;
/** Bytes of an 8-row swizzle atom: the stride between 8-row groups of a K-major operand. */
const ATOM_BYTES = 8 * SWIZZLE_BYTES;

/** How B's stage tile lands in shared memory and how a wgmma's descriptor walks it. */
interface BStageLayout {
  /** One box: rows × columns (elements). */
  readonly box: readonly [number, number];
  /** Each box: its element offset in the slot's B tile, and its inner and outer coordinates in the tensor (`N0`: the block's first column). */
  readonly boxes: readonly (readonly [offset: number, inner: string, outer: string])[];
  /** wgmma's transpose flag for B: 1 for an N-major tile, 0 for K-major. */
  readonly transpose: 0 | 1;
  readonly lbo: number;
  readonly sbo: number;
  /** The k1-th k step's element offset in the slot's B tile, and the extent the wgmma reads from there. */
  readonly kStep: string;
  readonly extent: number;
}

/**
 * B[k, j] (N-major: the fp16 wgmma transposes it): 64-column panels of BK k rows, one box each, side
 * by side (BK·64 elements apart), so LBO is a panel and SBO an 8-row atom (CUTLASS's layout for an
 * N-major operand with the 128B swizzle); a k step is K rows of every panel.
 */
function nMajorB(BK: number, BN: number, K: number, bytes: number): BStageLayout {
  const panel = BK * 64;
  const boxes = boxesOfTile("B", [BK, BN], [BK, 64]).map(([, col]) => [col * BK, `N0 + ${col}`, `t * ${BK}`] as const);
  return { box: [BK, 64], boxes, transpose: 1, lbo: panel * bytes, sbo: ATOM_BYTES, kStep: `k1 * ${K * 64}`, extent: (BN / 64 - 1) * panel + K * 64 };
}

/** Bᵀ[j, k] (K-major, as A): one BN×BK box (BN ≤ 256, TMA's largest box side); a k step is K columns of every row. */
function kMajorB(BK: number, BN: number, K: number): BStageLayout {
  return { box: [BN, BK], boxes: [[0, `t * ${BK}`, "N0"]], transpose: 0, lbo: 16, sbo: ATOM_BYTES, kStep: `k1 * ${K}`, extent: (BN - 1) * BK + K };
}

/** The kernel for n×n×n (n a multiple of 256), as lowering would leave it. */
export function tmaWgmmaGemmScript(n: number, opts: TmaWgmmaOptions = {}): string {
  const stages = opts.stages ?? 4;
  const rows = opts.consumerRows ?? 64;
  if (rows !== 64 && rows !== 128) throw new RangeError(`TMA wgmma GEMM: consumerRows must be 64 or 128, got ${String(rows)}`);
  const format = FORMATS[opts.operands ?? "float16"];
  if (format === undefined) throw new RangeError(`TMA wgmma GEMM: operands must be "float16" or "tf32", got ${JSON.stringify(opts.operands)}`);
  const { storage, bytes, wgmmaType, k: K } = format;
  // A stage's k: one swizzle row of elements (64 fp16 or 32 float32), K per wgmma.
  const BK = SWIZZLE_BYTES / bytes;
  const kSteps = BK / K;
  // The block tile (two consumer warpgroups of `rows` rows), the wgmmas a k step per warpgroup, and one slot's A and B tiles.
  const [BM, BN, halves] = [2 * rows, rows === 64 ? 256 : 128, rows / 64];
  const [A_TILE, B_TILE] = [BM * BK, BK * BN];
  const A_BOX = [BM, BK] as const;
  const STAGE_BYTES = (A_TILE + B_TILE) * bytes;
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
  const smem = (offset: string, extent: number) => `T.tvm_access_ptr(T.type_annotation("${storage}"), buf_dyn_shmem, ${offset}, ${extent}, 2)`;
  const m0 = group === undefined ? `${tile} // ${blocksN} * ${BM}` : `(${tile} // ${group * blocksN} * ${group} + ${tile} % ${group}) * ${BM}`;
  const n0 = group === undefined ? `${tile} % ${blocksN} * ${BN}` : `${tile} // ${group} % ${blocksN} * ${BN}`;
  const slot = `${g} % ${stages}`;
  const full = bar(slot);
  const aLoad = `T.ptx.cp_async_bulk_tensor_2d(${smem(`${slot} * ${A_TILE}`, A_TILE)}, A.data, ${A_BOX[1]}, ${A_BOX[0]}, 128, t * ${BK}, ${m0}, ${full})`;
  const bSlot = `${stages * A_TILE} + ${slot} * ${B_TILE}`;
  const bMajor = format.b === "B" ? nMajorB(BK, BN, K, bytes) : kMajorB(BK, BN, K);
  const bLoads = bMajor.boxes.map(
    ([offset, inner, outer]) =>
      `T.ptx.cp_async_bulk_tensor_2d(${smem(`${bSlot} + ${offset}`, bMajor.box[0] * bMajor.box[1])}, ${format.b}.data, ${bMajor.box[1]}, ${bMajor.box[0]}, 128, ${inner.replace("N0", n0)}, ${outer.replace("N0", n0)}, ${full})`,
  );
  // The warp's own 16 rows of its warpgroup's `rows` (wgmma's A pointer convention), in 64-row half h:
  // its 16 K-major rows from the k1-th k slice on (15 row strides and one slice).
  const warpRow = (h: number) => (rows === 64 ? "threadIdx_y * 16" : `threadIdx_y // 4 * ${rows} + ${h * 64} + threadIdx_y % 4 * 16`);
  const aPtr = (h: number) =>
    `T.tvm_access_ptr(T.type_annotation("${storage}"), buf_dyn_shmem, ${slot} * ${A_TILE} + (${warpRow(h)}) * ${BK} + k1 * ${K}, ${15 * BK + K}, 1)`;
  const bPtr = `T.tvm_access_ptr(T.type_annotation("${storage}"), buf_dyn_shmem, ${bSlot} + ${bMajor.kStep}, ${bMajor.extent}, 1)`;
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
    `    for k1 in range(${kSteps}):`,
    ...Array.from(
      { length: halves },
      (_, h) =>
        `        T.ptx.wgmma_mma_async_ss("m64n${BN}k${K}", "${wgmmaType}", "${wgmmaType}", "fp32", 0, ${bMajor.transpose}, 128, ${aPtr(h)}, 16, ${ATOM_BYTES}, ${bPtr}, ${bMajor.lbo}, ${bMajor.sbo}, C_warp, ${h * 64})`,
    ),
    // One group a k step (both halves' wgmmas): this stage's four stay in flight (wait_group takes at most 7).
    "        T.ptx.wgmma_commit_group()",
    `    T.ptx.wgmma_wait_group(${kSteps}, C_warp, 128)`,
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
def main(A: T.Buffer((${n}, ${n}), "${storage}"), ${format.b}: T.Buffer((${n}, ${n}), "${storage}"), C: T.Buffer((${n}, ${n}), "float32")):
    T.func_attr({"global_symbol": "${opts.name ?? "wgmma_tma_gemm"}", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", ${blocks})
    buf_dyn_shmem = T.allocate([${stages * (A_TILE + B_TILE)}], "${storage}", "shared.dyn")
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

/** Where a kernel's buffer argument comes from: a parameter of the module's function or one of its workspaces (codegen's ArgumentSource). */
export type KernelArgumentSource = { readonly kind: "param"; readonly index: number } | { readonly kind: "workspace"; readonly index: number };

/** A module of hand-written lowered kernels run in order over the function `source`'s arguments and global workspaces (codegen's `moduleFromKernelFuncs` builds it). */
export interface KernelModulePlan {
  readonly name: string;
  /** The function the kernels compute together; its parameters are the module's arguments. */
  readonly source: PrimFunc;
  readonly workspaces: readonly { readonly name: string; readonly dtype: "float32"; readonly elements: number }[];
  /** Each kernel and where its buffer parameters come from, by name. */
  readonly kernels: readonly { readonly func: PrimFunc; readonly sources: Readonly<Record<string, KernelArgumentSource>> }[];
}

/**
 * The TMA tf32 GEMM of `truncatingTf32Gemm(n)` (A, B, C): the transposing pre-pass writes Bᵀ to a
 * workspace, then `tmaWgmmaGemmScript(n, { ...opts, operands: "tf32" })` reads A and Bᵀ through
 * TMA. Both kernels are counted in a module's time.
 */
export function tmaWgmmaTf32Plan(n: number, opts: Omit<TmaWgmmaOptions, "operands"> = {}): KernelModulePlan {
  const name = opts.name ?? "wgmma_tma_tf32_gemm";
  const gemm = parsePrimFunc(tmaWgmmaGemmScript(n, { ...opts, name, operands: "tf32" }));
  const transpose = parsePrimFunc(transposeScript(n, `${name}_bt`));
  const bt = { kind: "workspace", index: 0 } as const;
  return {
    name,
    source: truncatingTf32Gemm(n),
    workspaces: [{ name: "Bt", dtype: "float32", elements: n * n }],
    kernels: [
      { func: transpose, sources: { In: { kind: "param", index: 1 }, Out: bt } },
      { func: gemm, sources: { A: { kind: "param", index: 0 }, Bt: bt, C: { kind: "param", index: 2 } } },
    ],
  };
}
