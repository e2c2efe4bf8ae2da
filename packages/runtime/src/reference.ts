/**
 * A trusted float64 reference of the course's workload D = ReLU(A·B) + C, computed on the GPU:
 * one thread per output, the dot product accumulated in double. It is deliberately naive so that
 * it can be trusted to check generated (float32, tiled) kernels against. Compiled once per
 * process; `disposeGemmReluAddReference()` unloads it.
 */
import { compileCuda } from "./compile/index.js";
import { loadModule, type CudaModule } from "./launch.js";
import { NDArray } from "./ndarray.js";

const KERNEL_NAME = "gemm_relu_add_f64";

const GEMM_RELU_ADD_F64 = `
extern "C" __global__ void ${KERNEL_NAME}(const float* __restrict__ A, const float* __restrict__ B,
                                          const float* __restrict__ C, double* __restrict__ D, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  double acc = 0.0;
  for (int k = 0; k < n; ++k) acc += (double)A[row * n + k] * (double)B[k * n + col];
  D[row * n + col] = fmax(acc, 0.0) + (double)C[row * n + col];
}`;

const BLOCK = 16;

/** The compile in flight or done (shared by concurrent callers; a failed compile is not kept). */
let loading: Promise<CudaModule> | undefined;
/** The loaded module, once `loading` has settled, so that dispose can unload it synchronously. */
let loaded: CudaModule | undefined;

function referenceKernelModule(): Promise<CudaModule> {
  if (loading === undefined) {
    const pending = compileCuda(GEMM_RELU_ADD_F64, { name: `${KERNEL_NAME}.cu` }).then((compiled) => loadModule(compiled));
    loading = pending;
    pending.then(
      (mod) => {
        if (loading === pending) loaded = mod;
        else mod.dispose(); // disposed while it was compiling
      },
      () => {
        if (loading === pending) loading = undefined;
      },
    );
  }
  return loading;
}

function checkOperand(name: string, a: NDArray, n: number): void {
  if (a.disposed) throw new Error(`gemmReluAddReference: ${name} was disposed`);
  if (a.device !== 0) throw new Error(`gemmReluAddReference: ${name} must be on device 0 (the reference runs there), not ${a.device}`);
  if (a.dtype !== "float32") throw new Error(`gemmReluAddReference: ${name} must be float32, not ${a.dtype}`);
  if (a.size !== n * n) throw new Error(`gemmReluAddReference: ${name} must hold ${n}×${n} = ${n * n} elements, not ${a.size}`);
}

/**
 * ReLU(A·B) + C in float64 from device arrays A, B, C (float32, row-major n×n), read back to the
 * host. Waits for work already queued on A, B and C (the read-back synchronizes).
 */
export async function gemmReluAddReference(A: NDArray, B: NDArray, C: NDArray, n: number): Promise<Float64Array> {
  if (!Number.isInteger(n) || n <= 0 || n > 2 ** 15) throw new Error(`gemmReluAddReference: n must be an integer in [1, 32768], not ${n}`);
  checkOperand("A", A, n);
  checkOperand("B", B, n);
  checkOperand("C", C, n);
  const mod = await referenceKernelModule();
  using D = NDArray.empty([n, n], "float64");
  D.fill(Number.NaN);
  const blocks = Math.ceil(n / BLOCK);
  mod.getKernel(KERNEL_NAME).launch({ grid: [blocks, blocks], block: [BLOCK, BLOCK] }, [A, B, C, D, n]);
  return D.toTypedArray() as Float64Array;
}

/** Unloads the reference kernel (it is compiled again on the next call). */
export function disposeGemmReluAddReference(): void {
  loaded?.dispose();
  loaded = undefined;
  loading = undefined;
}

/**
 * The same reference on the host, for small sizes (a simulator run at 256³, a dry run): rows of
 * the dot products accumulated in float64.
 */
export function gemmReluAddReferenceOnHost(A: Float32Array, B: Float32Array, C: Float32Array, n: number): Float64Array {
  const out = new Float64Array(n * n);
  const row = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    row.fill(0);
    for (let k = 0; k < n; k++) {
      const a = A[i * n + k]!;
      const bRow = k * n;
      for (let j = 0; j < n; j++) row[j]! += a * B[bRow + j]!;
    }
    for (let j = 0; j < n; j++) out[i * n + j] = Math.max(row[j]!, 0) + C[i * n + j]!;
  }
  return out;
}
