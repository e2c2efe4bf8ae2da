/**
 * Where `bench:gpu` keeps a module's arguments: NDArrays on the GPU, TypedArrays for the dry run's
 * simulator. Both poison the output with NaN before a run and read it back after.
 */
import { NDArray, type BuiltModule } from "../src/index.js";
import { disposeGemmReluAddReference, gemmReluAddReference } from "./gemm-reference.js";

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
  if (mod.device === "sim") {
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

/** relu(A @ B) + C computed on the GPU in float64 (the corpus's reference kernel), from the module's device arguments A, B, C. */
export function gpuGemmReference(args: BenchArgs, n: number): Promise<Float64Array> {
  const [A, B, C] = args.values;
  if (!(A instanceof NDArray && B instanceof NDArray && C instanceof NDArray)) throw new Error("gpuGemmReference: the arguments are not on the GPU");
  return gemmReluAddReference(A, B, C, n);
}

export function disposeReferences(): void {
  disposeGemmReluAddReference();
}
