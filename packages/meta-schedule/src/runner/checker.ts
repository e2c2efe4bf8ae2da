/**
 * Correctness checks of measured candidates (an addition to TVM's runner, which only times):
 * the runner runs each candidate once on the seeded random arguments, and a checker compares
 * every argument afterwards with what is expected — the first candidate's (a cheap consistency
 * check across the batch and the tuning run), or a reference computed on the CPU. What comes back
 * is each argument's digest (output-digest.ts): sampled elements and whole-array sums, or every
 * element when the runner is asked for all of them.
 */
import { type PrimFunc, decodeHalfArray, isHalfDType, runPrimFunc, toleranceForDType } from "@tessera/ir";
import type { AnyTypedArray } from "@tessera/runtime";
import type { ArgInfo } from "../arg-info.js";
import { argInfoToJSON } from "../arg-info.js";
import { type OutputDigest, digestOf } from "./output-digest.js";
import type { RunnerInput } from "../interfaces/runner.js";

export interface CheckTolerance {
  /** Relative tolerance (default 1e-4). */
  readonly rtol?: number;
  /** Absolute tolerance (default 1e-4). */
  readonly atol?: number;
}

export interface RunnerChecker {
  readonly name: string;
  /**
   * Compares `outputs` (the digest of every argument after one run of `input`'s candidate on
   * `inputs`, the seeded random arguments) with what is expected; returns why they differ, or undefined.
   */
  check(outputs: readonly OutputDigest[], inputs: readonly AnyTypedArray[], input: RunnerInput): string | undefined;
  /** Asynchronous work before `check` (computing a reference by compiled code), awaited before each check. */
  prepare?(input: RunnerInput, seed: number): Promise<void>;
}

/** The first mismatch between `actual` and `expected`, argument by argument and element by element, or undefined. */
export function compareArguments(actual: readonly AnyTypedArray[], expected: readonly AnyTypedArray[], tol: CheckTolerance = {}): string | undefined {
  const whole = (arrays: readonly AnyTypedArray[]) => arrays.map((a) => digestOf(a, "all"));
  return compareDigests(whole(actual), whole(expected), tol);
}

/**
 * The first difference between two digests of the same arguments: a sampled element out of
 * tolerance, or a whole-array sum further off than the elements' tolerances allow together.
 * With the arguments' `dtypes`, float16/bfloat16 arguments allow at least two ulps of their
 * format (`toleranceForDType`); others use `tol` as it is.
 */
export function compareDigests(
  actual: readonly OutputDigest[],
  expected: readonly OutputDigest[],
  tol: CheckTolerance = {},
  dtypes: readonly string[] = [],
): string | undefined {
  const base = { rtol: tol.rtol ?? 1e-4, atol: tol.atol ?? 1e-4 };
  if (actual.length !== expected.length) return `${actual.length} arguments came back, ${expected.length} expected`;
  for (let k = 0; k < expected.length; k++) {
    const a = actual[k]!;
    const e = expected[k]!;
    const dtype = dtypes[k];
    const { rtol, atol } = dtype === undefined ? base : toleranceForDType(dtype, base);
    if (a.length !== e.length) return `argument ${k} has ${a.length} elements, ${e.length} expected`;
    if (!sameIndices(a.indices, e.indices)) return `argument ${k} was sampled at other elements than the reference (different sample counts)`;
    for (let s = 0; s < e.values.length; s++) {
      const x = Number(a.values[s]);
      const y = Number(e.values[s]);
      if (Number.isNaN(x) && Number.isNaN(y)) continue;
      if (!(Math.abs(x - y) <= atol + rtol * Math.abs(y))) {
        const i = e.indices === undefined ? s : e.indices[s]!;
        return `argument ${k}, element ${i}: ${x}, expected ${y} (rtol ${rtol}, atol ${atol})`;
      }
    }
    if (a.sum !== undefined && e.sum !== undefined && e.absSum !== undefined && !(Number.isNaN(a.sum) && Number.isNaN(e.sum))) {
      const allowed = atol * e.length + rtol * e.absSum;
      if (!(Math.abs(a.sum - e.sum) <= allowed)) {
        return `argument ${k}: the sum of its ${e.length} elements is ${a.sum.toPrecision(8)}, expected ${e.sum.toPrecision(8)} (off by more than the elements' tolerances allow together, ${allowed.toPrecision(3)}): elements that were not sampled differ`;
      }
    }
  }
  return undefined;
}

function sameIndices(a: Int32Array | undefined, b: Int32Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((x, k) => x === b[k]);
}

function argsKey(argsInfo: readonly ArgInfo[]): string {
  return JSON.stringify(argsInfo.map(argInfoToJSON));
}

/** The first candidate checked (per argument list) is the reference of the later ones. */
export function firstResultChecker(tol: CheckTolerance = {}): RunnerChecker {
  const references = new Map<string, readonly OutputDigest[]>();
  return {
    name: "first-result",
    check(outputs, _inputs, input) {
      const key = argsKey(input.argsInfo);
      const reference = references.get(key);
      if (reference === undefined) {
        references.set(key, outputs);
        return undefined;
      }
      return compareDigests(outputs, reference, tol, dtypesOf(input));
    },
  };
}

/**
 * Outputs expected from `reference(inputs)` (a copy of the inputs it may overwrite), computed
 * once per argument list — e.g. `cpuReference(workload.func)`.
 */
export function referenceChecker(reference: (inputs: AnyTypedArray[]) => readonly AnyTypedArray[], tol: CheckTolerance = {}): RunnerChecker {
  const expected = new Map<string, readonly AnyTypedArray[]>();
  return {
    name: "reference",
    check(outputs, inputs, input) {
      const key = argsKey(input.argsInfo);
      let want = expected.get(key);
      if (want === undefined) {
        want = reference(inputs.map((a) => a.slice() as AnyTypedArray));
        expected.set(key, want);
      }
      // Digested like the candidate's outputs: the same sample of elements.
      return compareDigests(
        outputs,
        want.map((w, k) => (outputs[k]?.indices === undefined ? digestOf(w, "all") : digestOf(w, outputs[k]!.indices!.length))),
        tol,
        dtypesOf(input),
      );
    },
  };
}

/** The dtype of every argument of a runner input, for per-dtype tolerances. */
export function dtypesOf(input: RunnerInput): string[] {
  return input.argsInfo.map((a) => a.dtype);
}

/**
 * The unscheduled function run by the CPU executor (slow at large sizes: meant for small workloads).
 * 16-bit float arguments come as the runner draws and uploads them, bit patterns (Uint16Array); the
 * executor holds them as their values, which is also how the device's outputs are digested.
 */
export function cpuReference(func: PrimFunc): (inputs: AnyTypedArray[]) => readonly AnyTypedArray[] {
  return (args) => {
    const values = args.map((a, k) => {
      const dtype = func.params[k] === undefined ? undefined : func.bufferMap.get(func.params[k]!)?.dtype;
      return dtype !== undefined && isHalfDType(dtype) && a instanceof Uint16Array ? decodeHalfArray(dtype, a) : a;
    });
    runPrimFunc(func, values as never);
    return values;
  };
}
