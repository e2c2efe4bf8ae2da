/**
 * One Dawn device for a test file (OpenGL ES on Mesa's llvmpipe without a GPU), and the check
 * every WGSL execution test makes: the scheduled function through WGSL on the device against
 * the unscheduled function in the JS executor, on the same random inputs.
 */
import { type PrimFunc, type TypedArray, compilePrimFunc, randomArgs } from "@tessera/ir";
import type { WebGpuTarget, WebGpuTargetName } from "@tessera/codegen";
import { build, loadModule } from "../../src/index.js";
import { type NodeDevice, requestNodeDevice } from "../../src/node/index.js";

let devicePromise: Promise<NodeDevice | { readonly unavailable: string }> | undefined;

export function dawnDevice(): Promise<NodeDevice | { readonly unavailable: string }> {
  devicePromise ??= requestNodeDevice();
  return devicePromise;
}

/** The device, or why there is none (the tests skip with that line). */
export const dawn = await dawnDevice();
export const noAdapter = "unavailable" in dawn ? dawn.unavailable : undefined;

export interface Comparison {
  /** Largest |got − expected| over every output element, relative to max(1, |expected|). */
  readonly maxError: number;
  /** Elements that differ beyond the tolerance (NaN matches NaN). */
  readonly mismatches: number;
}

/** Runs `scheduled` through WGSL on Dawn and `original` in the executor; compares every buffer. */
export async function compareOnDawn(
  original: PrimFunc,
  scheduled: PrimFunc,
  seed: number,
  target: WebGpuTarget | WebGpuTargetName = "webgpu",
  tolerance = 1e-4,
): Promise<Comparison> {
  if ("unavailable" in dawn) throw new Error(dawn.unavailable);
  const module = await loadModule(dawn.device, build(scheduled, target));
  const expected = randomArgs(original, seed);
  const got = expected.map((a) => a.slice()) as TypedArray[];
  compilePrimFunc(original).run(expected);
  await module.run(got as Float32Array[]);
  let maxError = 0;
  let mismatches = 0;
  got.forEach((g, b) => {
    const e = expected[b]!;
    for (let i = 0; i < g.length; i++) {
      const x = Number(g[i]);
      const y = Number(e[i]);
      if (Number.isNaN(x) && Number.isNaN(y)) continue;
      const err = Math.abs(x - y) / Math.max(1, Math.abs(y));
      if (!(err <= tolerance)) mismatches++;
      maxError = Math.max(maxError, Number.isNaN(err) ? Infinity : err);
    }
  });
  return { maxError, mismatches };
}
