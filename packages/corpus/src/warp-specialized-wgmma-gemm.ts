/**
 * A warp-specialised wgmma GEMM in lowered TVMScript (`C = A·B`, fp16 A and B row-major, fp32 C;
 * the same function as `wgmmaGemm`): the shape of `wgmmaGemmSchedule` with WGMMA_PARAMS (128×256
 * block tiles, two consumer warpgroups of m64n256k16 wgmmas from 128B-swizzled dynamic shared
 * memory, k stages of 64), but the stages are filled by a third, producer warpgroup and handed over
 * through mbarriers instead of block-wide barriers:
 *
 *     producer warpgroup (warps 8–11), k stage t in ring slot s = t % S, round r = t / S:
 *         wait empty[s] for parity (r + 1) % 2
 *         24 cp.async copies of 16 bytes per thread (A's 128×64 and B's 64×256 tiles, swizzled)
 *         cp_async_mbarrier_arrive(full[s])            # full[s] counts the 128 producer threads
 *     consumer warps 0–7:
 *         wait full[s] for parity r % 2; fence.proxy.async; wgmma.fence; 4 wgmmas (k 16 each)
 *         wait_group 4 (stage t − 1's wgmmas retired); lane 0: arrive(empty[(t − 1) % S])   # counts 8
 *
 * So the copies run up to S stages ahead without any `__syncthreads` in the k loop, and the
 * consumers issue no address arithmetic for copies (CUTLASS's sm90 warp-specialised mainloop,
 * with cp.async in place of TMA). A hand-written kernel, not a schedule: the lowering path that
 * would derive it from `wgmmaGemmSchedule` does not exist yet. On an H200 it is correct but slower
 * than the cp.async kernel of `wgmmaGemmSchedule` (0.326 ms against 0.277 ms at 4096³ with 4 slots,
 * 1.77× cuBLAS HGEMM; docs/benchmarks/tensor-core-2026-11-30-s14): the copies' per-thread address
 * work sits on 4 warps instead of 8, and each stage costs the consumers a proxy fence; TMA removes both.
 */

export interface WarpSpecializedWgmmaOptions {
  /** Shared ring slots (default 4; 48 KiB each). */
  readonly stages?: number;
  /** The global symbol (default `wgmma_ws_gemm`). */
  readonly name?: string;
}

const [BM, BN, BK] = [128, 256, 64];
/** fp16 elements of one slot's A tile and B tile. */
const [A_TILE, B_TILE] = [BM * BK, BK * BN];

/** The kernel for n×n×n (n a multiple of 256), as lowering would leave it. */
export function warpSpecializedWgmmaGemmScript(n: number, opts: WarpSpecializedWgmmaOptions = {}): string {
  const stages = opts.stages ?? 4;
  if (!Number.isInteger(n) || n <= 0 || n % BN !== 0) throw new RangeError(`warp-specialised wgmma GEMM: n = ${n} is not a positive multiple of ${BN}`);
  if (!Number.isInteger(stages) || stages < 1 || stages > 4)
    throw new RangeError(`warp-specialised wgmma GEMM: stages must be 1 to 4 (48 KiB each), got ${stages}`);
  const steps = n / BK;
  const blocksN = n / BN;
  const bar = (i: string) => `T.tvm_access_ptr(T.type_annotation("uint64"), bars, ${i}, 1, 3)`;
  const m0 = `blockIdx_x // ${blocksN} * ${BM}`;
  const n0 = `blockIdx_x % ${blocksN} * ${BN}`;
  const p = "((threadIdx_y - 8) * 32 + threadIdx_x)";
  // A: 16-byte chunk q = i·128 + p of the 128×64 tile, row q / 8, chunk q % 8, swizzled by row % 8.
  const aRow = `(i * 16 + ${p} // 8)`;
  const aDst = `t % ${stages} * ${A_TILE} + ${aRow} * 64 + T.bitwise_xor(threadIdx_x % 8, ${aRow} % 8) * 8`;
  const aSrc = `(${m0} + ${aRow}) * ${n} + t * ${BK} + threadIdx_x % 8 * 8`;
  // B: chunk q = i·128 + p of the 64×256 tile, k row q / 32, 8-column chunk q % 32 (= threadIdx_x),
  // in 64-column panels of 8 rows (1024 bytes) side by side per 8-row group, each swizzled as A.
  const bRow = `(i * 4 + threadIdx_y - 8)`;
  const bDst = `${stages * A_TILE} + t % ${stages} * ${B_TILE} + ${bRow} // 8 * 2048 + threadIdx_x // 8 * 512 + ${bRow} % 8 * 64 + T.bitwise_xor(threadIdx_x % 8, ${bRow} % 8) * 8`;
  const bSrc = `(t * ${BK} + ${bRow}) * ${n} + ${n0} + threadIdx_x * 8`;
  const aPtr = `T.tvm_access_ptr(T.type_annotation("float16"), buf_dyn_shmem, t % ${stages} * ${A_TILE} + threadIdx_y * 1024 + k1 * 16, 976, 1)`;
  const bPtr = `T.tvm_access_ptr(T.type_annotation("float16"), buf_dyn_shmem, ${stages * A_TILE} + t % ${stages} * ${B_TILE} + k1 * 4096, 4096, 1)`;
  const cPtr = `T.tvm_access_ptr(T.type_annotation("float32"), C.data, (${m0} + threadIdx_y * 16) * ${n} + ${n0} + j * 16, 4096, 2)`;
  return `@T.prim_func
def main(A: T.Buffer((${n}, ${n}), "float16"), B: T.Buffer((${n}, ${n}), "float16"), C: T.Buffer((${n}, ${n}), "float32")):
    T.func_attr({"global_symbol": "${opts.name ?? "wgmma_ws_gemm"}", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", ${(n / BM) * blocksN})
    buf_dyn_shmem = T.allocate([${stages * (A_TILE + B_TILE)}], "float16", "shared.dyn")
    bars = T.allocate([${2 * stages}], "uint64", "shared")
    C_warp = T.allocate([128], "float32", "local")
    threadIdx_y = T.launch_thread("threadIdx.y", 12)
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    if threadIdx_y == 0:
        if threadIdx_x == 0:
            for i in range(${stages}):
                T.ptx.mbarrier_init(${bar("i")}, 128)
                T.ptx.mbarrier_init(${bar(`${stages} + i`)}, 8)
    T.tvm_storage_sync("shared")
    if threadIdx_y >= 8:
        for t in range(${steps}):
            T.ptx.mbarrier_wait_parity(${bar(`${stages} + t % ${stages}`)}, (t // ${stages} + 1) % 2)
            for i in range(8):
                T.ptx_cp_async("float16", buf_dyn_shmem, ${aDst}, A.data, ${aSrc}, 16)
            for i in range(16):
                T.ptx_cp_async("float16", buf_dyn_shmem, ${bDst}, B.data, ${bSrc}, 16)
            T.ptx.cp_async_mbarrier_arrive(${bar(`t % ${stages}`)})
    if threadIdx_y < 8:
        for j in range(16):
            T.cuda.mma_fill_legacy(8, C_warp, j * 8, dtype="float32")
        for t in range(${steps}):
            T.ptx.mbarrier_wait_parity(${bar(`t % ${stages}`)}, t // ${stages} % 2)
            T.ptx.fence_proxy_async()
            T.ptx.wgmma_fence()
            for k1 in range(4):
                T.ptx.wgmma_mma_async_ss("m64n256k16", "fp16", "fp16", "fp32", 0, 1, 128, ${aPtr}, 16, 1024, ${bPtr}, 1024, 4096, C_warp, 0)
                T.ptx.wgmma_commit_group()
            T.ptx.wgmma_wait_group(4, C_warp, 128)
            if t > 0:
                if threadIdx_x == 0:
                    T.ptx.mbarrier_arrive(${bar(`${stages} + (t - 1) % ${stages}`)})
        T.ptx.wgmma_wait_group(0, C_warp, 128)
        for j in range(16):
            T.cuda.mma_store_legacy(16, 16, ${cPtr}, C_warp, j * 8, ${n}, dtype="float32")
`;
}
