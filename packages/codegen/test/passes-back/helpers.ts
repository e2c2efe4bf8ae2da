/** Shared helpers of the back-pass tests (passes 8–14): parsing, golden printing, execution checks. */
import { type PrimFunc, compilePrimFunc, parsePrimFunc, primFunc, printTVMScript, randomArgs } from "@tessera/ir";
import { expect } from "vitest";
import type { DeviceKernel } from "../../src/lowered.js";
import type { Pass, PassContext } from "../../src/lower/pass.js";
import type { CudaTarget } from "../../src/targets/cuda.js";
import { target } from "../../src/targets/target.js";

export const T4: CudaTarget = target("nvidia/tesla-t4");
export const CTX: PassContext = { target: T4 };

/** Parses lowered TVMScript (the `# from tvm.script …` header and leading indentation are optional). */
export function parse(src: string): PrimFunc {
  return parsePrimFunc(dedent(src));
}

export function runPass(pass: Pass, src: string | PrimFunc, ctx: PassContext = CTX): PrimFunc {
  return pass.run(typeof src === "string" ? parse(src) : src, ctx);
}

/** Printed TVMScript, normalised: comparing `print(after)` with `print(parse(expected))` ignores layout. */
export function print(func: PrimFunc): string {
  return printTVMScript(func);
}

/** Golden check: the pass output prints exactly as the expected TVMScript does. */
export function expectScript(func: PrimFunc, expected: string): void {
  expect(print(func)).toBe(print(parse(expected)));
}

export function dedent(src: string): string {
  const lines = src.replace(/^\n+/, "").replace(/\s+$/, "").split("\n");
  const indent = Math.min(...lines.filter((l) => l.trim() !== "").map((l) => l.length - l.trimStart().length));
  return lines.map((l) => l.slice(indent)).join("\n") + "\n";
}

/** Scalar parameters get this value in execution checks. */
export const SCALAR_ARGUMENT = 5;

/** Outputs of `func` on the seeded random inputs of `reference` (every buffer parameter's array). */
export function outputsOn(func: PrimFunc, reference: PrimFunc, seed: number): ArrayLike<number>[] {
  const arrays = randomArgs(reference, seed);
  let next = 0;
  const args = reference.params.map((p) => (reference.bufferMap.has(p) ? arrays[next++]! : SCALAR_ARGUMENT));
  compilePrimFunc(func).run(args);
  return arrays;
}

/** `func` leaves the same values as `reference` in every parameter, on seeded random inputs. */
export function expectSameResults(func: PrimFunc, reference: PrimFunc, seed = 7, tolerance = 1e-4): void {
  const want = outputsOn(reference, reference, seed);
  const got = outputsOn(func, reference, seed);
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    const w = want[i]!;
    let worst = 0;
    for (let k = 0; k < w.length; k++) worst = Math.max(worst, Math.abs(g[k]! - w[k]!));
    expect(worst, `parameter ${i}`).toBeLessThanOrEqual(tolerance);
  });
}

/** A kernel as a function of its buffer parameters, for the sequential executor. */
export function kernelFunc(kernel: DeviceKernel): PrimFunc {
  const params = kernel.params.map((p) => (p.kind === "buffer" ? p.buffer.data : p.var));
  const bufferMap = new Map(kernel.params.flatMap((p) => (p.kind === "buffer" ? [[p.buffer.data, p.buffer] as const] : [])));
  return primFunc(params, bufferMap, kernel.body, { global_symbol: kernel.name });
}

/** The message of the error `f` throws, checking its class. */
export function errorOf(f: () => unknown, cls: abstract new (...args: never[]) => Error): Error {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(cls);
    return err as Error;
  }
  throw new Error("expected an error, none was thrown");
}
