/**
 * The graded workload's module on the GPU: its size read from the built module's parameters, and
 * the device arrays (the binding's inputs and output, float32 n×n each) it runs on.
 */
import type { WorkloadNumerics } from "@tessera/course-kit";
import { NDArray, type ParamSpec } from "@tessera/runtime";
import { releaseAll } from "./release.js";

function describeParams(params: readonly ParamSpec[]): string {
  return params.map((p) => (p.kind === "buffer" ? `${p.name}: ${p.dtype}[${p.shape.join(", ")}]` : `${p.name}: ${p.dtype}`)).join(", ");
}

/** The workload's buffers: its inputs, then its output. */
function operandNames(numerics: WorkloadNumerics): string[] {
  return [...numerics.inputNames, numerics.output];
}

/**
 * The size n of a built module of the workload. Its parameters must be the binding's inputs and
 * output, each a float32 n×n buffer (in any order); anything else is an error naming what the
 * module has instead.
 */
export function workloadSize(params: readonly ParamSpec[], numerics: WorkloadNumerics): number {
  const names = params.map((p) => p.name).sort();
  const expected = operandNames(numerics);
  const first = params[0];
  const n = first?.kind === "buffer" ? first.shape[0] : undefined;
  const square = (p: ParamSpec): boolean => p.kind === "buffer" && p.dtype === "float32" && p.shape.length === 2 && p.shape.every((d) => d === n);
  if (names.join(",") !== [...expected].sort().join(",") || n === undefined || !params.every(square)) {
    throw new Error(`the module's parameters are (${describeParams(params)}), not ${expected.join(", ")} as float32 n×n arrays of ${numerics.workload}`);
  }
  return n;
}

/** Device arrays of one n×n workload: its inputs and its output. `dispose()` frees them all. */
export class WorkloadArrays {
  private constructor(
    private readonly numerics: WorkloadNumerics,
    private readonly arrays: ReadonlyMap<string, NDArray>,
  ) {}

  static allocate(numerics: WorkloadNumerics, n: number): WorkloadArrays {
    const made = new Map<string, NDArray>();
    try {
      for (const name of operandNames(numerics)) made.set(name, NDArray.empty([n, n], "float32"));
    } catch (err) {
      releaseAll(...made.values());
      throw err;
    }
    return new WorkloadArrays(numerics, made);
  }

  private array(name: string): NDArray {
    const a = this.arrays.get(name);
    if (a === undefined) throw new Error(`${this.numerics.workload} has no parameter ${name}`);
    return a;
  }

  /** The input arrays, in the binding's order. */
  get inputs(): NDArray[] {
    return this.numerics.inputNames.map((name) => this.array(name));
  }

  upload(values: readonly Float32Array[]): void {
    this.numerics.inputNames.forEach((name, k) => this.array(name).copyFrom(values[k]!));
  }

  /** Fills the output with NaN, so that an element the kernels never write shows up as NaN. */
  poisonOutput(): void {
    this.array(this.numerics.output).fill(Number.NaN);
  }

  /** Copies the output back to the host (this waits for the kernels). */
  readOutput(): Float32Array {
    return this.array(this.numerics.output).toTypedArray() as Float32Array;
  }

  /** The arrays in the order of the module's parameters (checked by workloadSize). */
  argsFor(params: readonly ParamSpec[]): NDArray[] {
    return params.map((p) => this.array(p.name));
  }

  dispose(): void {
    releaseAll(...this.arrays.values());
  }
}
