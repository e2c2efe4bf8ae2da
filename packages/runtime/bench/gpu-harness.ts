/**
 * Where `bench:gpu` keeps a module's arguments: NDArrays on the GPU, TypedArrays for the dry run's
 * simulator. Both poison the output with NaN before a run and read it back after.
 */
import { compileCuda, loadModule, NDArray, type BuiltModule, type CudaModule } from "../src/index.js";

export interface BenchArgs {
  /** What the module is called with. */
  readonly values: readonly unknown[];
  poisonOutput(): void;
  readOutput(): Float32Array;
  dispose(): void;
}

/** `host` holds one array per module parameter (the output last). */
export function benchArgs(mod: BuiltModule, host: readonly Float32Array[]): BenchArgs {
  const out = host.length - 1;
  if (mod.device === "cpu") {
    const values = host.map((a) => a.slice());
    return {
      values,
      poisonOutput: () => void (values[out] as Float32Array).fill(Number.NaN),
      readOutput: () => (values[out] as Float32Array).slice(),
      dispose: () => {},
    };
  }
  const values: NDArray[] = [];
  try {
    host.forEach((a, i) => {
      const p = mod.params[i];
      values.push(NDArray.from(a, { shape: p?.kind === "buffer" ? p.shape : [a.length] }));
    });
  } catch (e) {
    for (const v of values) v.dispose();
    throw e;
  }
  return {
    values,
    poisonOutput: () => void (values[out] as NDArray).fill(Number.NaN),
    readOutput: () => (values[out] as NDArray).toTypedArray() as Float32Array,
    dispose: () => {
      for (const v of values) v.dispose();
    },
  };
}

/** A trusted reference: one thread per output, the dot product accumulated in double. */
const GEMM_F64_REFERENCE = `
extern "C" __global__ void gemm_relu_add_f64(const float* __restrict__ A, const float* __restrict__ B,
                                             const float* __restrict__ C, double* __restrict__ D, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  double acc = 0.0;
  for (int k = 0; k < n; ++k) acc += (double)A[row * n + k] * (double)B[k * n + col];
  D[row * n + col] = fmax(acc, 0.0) + (double)C[row * n + col];
}`;

let referenceModule: CudaModule | undefined;

/** relu(A @ B) + C computed on the GPU in float64, from the module's device arguments A, B, C. */
export async function gpuGemmReference(args: BenchArgs, n: number): Promise<Float64Array> {
  if (referenceModule === undefined)
    referenceModule = loadModule(await compileCuda(GEMM_F64_REFERENCE, { name: "gemm_relu_add_f64.cu" }));
  const [A, B, C] = args.values as NDArray[];
  using D = NDArray.empty([n, n], "float64");
  D.fill(Number.NaN);
  referenceModule
    .getKernel("gemm_relu_add_f64")
    .launch({ grid: [Math.ceil(n / 16), Math.ceil(n / 16)], block: [16, 16] }, [A as NDArray, B as NDArray, C as NDArray, D, n]);
  return D.toTypedArray() as Float64Array;
}

export function disposeReferences(): void {
  referenceModule?.dispose();
  referenceModule = undefined;
}
