/**
 * The benchmarks' float64 check of large gemm+ReLU+add outputs: the corpus's naive reference kernel
 * compiled once per process and run on the module's own device inputs, read back to the host.
 */
import { GEMM_RELU_ADD_F64_CUDA, GEMM_RELU_ADD_F64_KERNEL } from "@tessera/corpus";
import { type CudaModule, NDArray, compileCuda, loadModule } from "../src/index.js";

const BLOCK = 16;

let referenceModule: Promise<CudaModule> | undefined;
let loaded: CudaModule | undefined;

/** ReLU(A·B) + C in float64 from device arrays A, B, C (float32, n×n); waits for work queued on them. */
export async function gemmReluAddReference(A: NDArray, B: NDArray, C: NDArray, n: number): Promise<Float64Array> {
  referenceModule ??= compileCuda(GEMM_RELU_ADD_F64_CUDA, { name: `${GEMM_RELU_ADD_F64_KERNEL}.cu` }).then((compiled) => loadModule(compiled));
  const mod = await referenceModule;
  loaded = mod;
  using D = NDArray.empty([n, n], "float64");
  D.fill(Number.NaN);
  const blocks = Math.ceil(n / BLOCK);
  mod.getKernel(GEMM_RELU_ADD_F64_KERNEL).launch({ grid: [blocks, blocks], block: [BLOCK, BLOCK] }, [A, B, C, D, n]);
  return D.toTypedArray() as Float64Array;
}

/** Unloads the reference kernel (compiled again on the next call). */
export function disposeGemmReluAddReference(): void {
  loaded?.dispose();
  loaded = undefined;
  referenceModule = undefined;
}
