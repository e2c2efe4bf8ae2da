/**
 * A float32 transpose `Out[j, i] = In[i, j]` (n×n) in lowered TVMScript: the pre-pass that gives a
 * K-major kernel Bᵀ of a row-major B (the TMA tf32 GEMM, tma-wgmma-gemm.ts, whose tf32 wgmmas read
 * only K-major operands and whose TMA boxes copy rows as they are). The classic tiled transpose, as
 * `transposingPrePass` (operand-prepass.ts) schedules it for the scheduled tf32 kernels: a block of
 * 32×8 threads moves a 32×32 tile, reading four of its rows a thread into a shared tile padded by
 * one word a row (so the column reads hit 32 banks) and writing its columns as rows of the output,
 * coalesced both ways. Values are copied, not rounded.
 */

/** The tile's side, and the tile rows a thread moves (the block's threadIdx.y extent is TILE / ROWS_PER_THREAD). */
const TILE = 32;
const ROWS_PER_THREAD = 4;

/** The transpose of an n×n float32 matrix (n a multiple of 32), parameters `In` and `Out`, flat. */
export function transposeScript(n: number, name = "transpose"): string {
  if (!Number.isInteger(n) || n <= 0 || n % TILE !== 0) throw new RangeError(`transpose: n = ${n} is not a positive multiple of ${TILE}`);
  const tiles = n / TILE;
  const rowsY = TILE / ROWS_PER_THREAD;
  // Tile (bi, bj) of In: rows bi·32…, columns bj·32…; it lands at rows bj·32…, columns bi·32… of Out.
  const [bi, bj] = [`blockIdx_x // ${tiles}`, `blockIdx_x % ${tiles}`];
  const row = `(threadIdx_y + i * ${rowsY})`;
  return `@T.prim_func
def main(In: T.Buffer((${n * n},), "float32"), Out: T.Buffer((${n * n},), "float32")):
    T.func_attr({"global_symbol": "${name}", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", ${tiles * tiles})
    tile_data = T.allocate([${TILE * (TILE + 1)}], "float32", "shared")
    tile = T.Buffer((${TILE * (TILE + 1)},), data=tile_data, scope="shared")
    threadIdx_y = T.launch_thread("threadIdx.y", ${rowsY})
    threadIdx_x = T.launch_thread("threadIdx.x", ${TILE})
    for i in range(${ROWS_PER_THREAD}):
        tile[${row} * ${TILE + 1} + threadIdx_x] = In[(${bi} * ${TILE} + ${row}) * ${n} + ${bj} * ${TILE} + threadIdx_x]
    T.tvm_storage_sync("shared")
    for i in range(${ROWS_PER_THREAD}):
        Out[(${bj} * ${TILE} + ${row}) * ${n} + ${bi} * ${TILE} + threadIdx_x] = tile[threadIdx_x * ${TILE + 1} + ${row}]
`;
}
