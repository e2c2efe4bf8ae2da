/**
 * Lowered kernels written by hand in TVMScript (the form `lower()` produces), for tests of the
 * passes after lowering, the CUDA generator, the simulator and the CLI.
 */

export interface LoweredWindowSumOptions {
  /** Keep the barrier between the shared-memory fetch and its use (default true); false is a race. */
  readonly sync?: boolean;
  /** The index of the store to B (default `blockIdx_x * 64 + threadIdx_x`); change it to inject a bug. */
  readonly outputIndex?: string;
}

/**
 * The MLC window sum B[i] = A[i] + A[i+1] + A[i+2] over 256 outputs, lowered: 4 blocks of 64
 * threads, each block fetching its 66 inputs into shared memory cooperatively.
 */
export function loweredWindowSumScript(opts: LoweredWindowSumOptions = {}): string {
  const out = opts.outputIndex ?? "blockIdx_x * 64 + threadIdx_x";
  const sync = opts.sync === false ? "" : '    T.tvm_storage_sync("shared")\n';
  return `
@T.prim_func
def main(A: T.Buffer((258,), "float32"), B: T.Buffer((256,), "float32")):
    T.func_attr({"global_symbol": "window_sum", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 4)
    A_shared = T.allocate([66], "float32", "shared")
    A_shared_1 = T.Buffer((66,), data=A_shared, scope="shared")
    threadIdx_x = T.launch_thread("threadIdx.x", 64)
    for ax0_0 in range(2):
        if ax0_0 * 64 + threadIdx_x < 66:
            A_shared_1[ax0_0 * 64 + threadIdx_x] = A[blockIdx_x * 64 + ax0_0 * 64 + threadIdx_x]
${sync}    B[${out}] = A_shared_1[threadIdx_x] + A_shared_1[threadIdx_x + 1] + A_shared_1[threadIdx_x + 2]
`;
}
