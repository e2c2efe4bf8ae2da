/**
 * Test support for the 3xTF32 wgmma kernels (wgmma-tf32x3-gemm*.test.ts): the float32 sums in the
 * order the kernel's three wgmmas per k step issue them, and a kernel simulated beside it and the
 * executor.
 */
import type { LoweredModule } from "@tessera/codegen";
import { WGMMA_TF32X3_CHUNK, tf32x3Gemm, tf32x3GemmReluAdd } from "@tessera/corpus";
import { compilePrimFunc, randomArgs, roundToTF32 } from "@tessera/ir";
import { simulate } from "../../src/index.js";

const K_STEP = 8;
const f = Math.fround;

/** D = A·B (or max(A·B, 0) + C) summed as the kernel's three wgmmas per k step and its chunk adds, in float32. */
export function threeWgmmaOrder(n: number, a: Float32Array, b: Float32Array, c?: Float32Array): Float32Array {
  const split = (x: Float32Array) => {
    const hi = x.map(roundToTF32);
    return { hi, lo: x.map((v, i) => roundToTF32(f(v - hi[i]!))) };
  };
  const [A, B] = [split(a), split(b)];
  const out = new Float32Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let main = 0;
      for (let k0 = 0; k0 < n; k0 += WGMMA_TF32X3_CHUNK) {
        let chunk = 0;
        for (let step = k0; step < k0 + WGMMA_TF32X3_CHUNK; step += K_STEP)
          for (const [x, y] of [
            [A.lo, B.hi],
            [A.hi, B.lo],
            [A.hi, B.hi],
          ] as const)
            for (let k = step; k < step + K_STEP; k++) chunk = f(chunk + f(x[i * n + k]! * y[k * n + j]!));
        main = f(main + chunk);
      }
      out[i * n + j] = c === undefined ? main : f(Math.max(main, 0) + c[i * n + j]!);
    }
  return out;
}

/** The kernel simulated beside the executor and `threeWgmmaOrder` on the same seeded inputs. */
export function run(module: LoweredModule, n: number, reluAdd: boolean, seed: number) {
  const original = reluAdd ? tf32x3GemmReluAdd(n, WGMMA_TF32X3_CHUNK) : tf32x3Gemm(n, WGMMA_TF32X3_CHUNK);
  const args = randomArgs(original, seed, { low: -2, high: 2 }) as Float32Array[];
  const out = reluAdd ? 3 : 2;
  const [executor, simulated] = [args.map((x) => x.slice()), args.map((x) => x.slice())];
  executor[out]!.fill(Number.NaN);
  simulated[out]!.fill(Number.NaN);
  compilePrimFunc(original).run(executor);
  const report = simulate(module, simulated);
  const model = threeWgmmaOrder(n, args[0]!, args[1]!, reluAdd ? args[2] : undefined);
  let [modelBits, executorMax, scale] = [0, 0, 0];
  for (let i = 0; i < n * n; i++) {
    if (!Object.is(model[i], simulated[out]![i])) modelBits++;
    executorMax = Math.max(executorMax, Math.abs(simulated[out]![i]! - executor[out]![i]!));
    scale = Math.max(scale, Math.abs(executor[out]![i]!));
  }
  return { modelBits, executorMax, scale, races: report.raceCount };
}
