/**
 * The graded workload's module on the GPU: its size read from the built module's parameters, and
 * the device arrays A, B, C (inputs) and D (output) it runs on.
 */
import { NDArray, type ParamSpec } from "@tessera/runtime";
import { releaseAll } from "./release.js";

const OPERANDS = ["A", "B", "C", "D"] as const;
type Operand = (typeof OPERANDS)[number];

function isOperand(name: string): name is Operand {
  return (OPERANDS as readonly string[]).includes(name);
}

function describeParams(params: readonly ParamSpec[]): string {
  return params.map((p) => (p.kind === "buffer" ? `${p.name}: ${p.dtype}[${p.shape.join(", ")}]` : `${p.name}: ${p.dtype}`)).join(", ");
}

/**
 * M = N = K of a built gemm_relu_add module. Its parameters must be A, B, C, D, each a float32
 * n×n buffer (in any order); anything else is an error naming what the module has instead.
 */
export function gemmReluAddSize(params: readonly ParamSpec[]): number {
  const names = params.map((p) => p.name).sort();
  const first = params[0];
  const n = first?.kind === "buffer" ? first.shape[0] : undefined;
  const square = (p: ParamSpec): boolean => p.kind === "buffer" && p.dtype === "float32" && p.shape.length === 2 && p.shape.every((d) => d === n);
  if (names.join(",") !== OPERANDS.join(",") || n === undefined || !params.every(square)) {
    throw new Error(`the module's parameters are (${describeParams(params)}), not A, B, C, D as float32 n×n arrays of gemm_relu_add`);
  }
  return n;
}

/** Device arrays A, B, C, D of one n×n gemm_relu_add. `dispose()` frees all four. */
export class GemmArrays {
  private constructor(
    readonly n: number,
    private readonly arrays: Readonly<Record<Operand, NDArray>>,
  ) {}

  static allocate(n: number): GemmArrays {
    const made: NDArray[] = [];
    try {
      for (let i = 0; i < OPERANDS.length; i++) made.push(NDArray.empty([n, n], "float32"));
    } catch (err) {
      releaseAll(...made);
      throw err;
    }
    const [A, B, C, D] = made as [NDArray, NDArray, NDArray, NDArray];
    return new GemmArrays(n, { A, B, C, D });
  }

  get A(): NDArray {
    return this.arrays.A;
  }
  get B(): NDArray {
    return this.arrays.B;
  }
  get C(): NDArray {
    return this.arrays.C;
  }

  upload([a, b, c]: readonly [Float32Array, Float32Array, Float32Array]): void {
    this.arrays.A.copyFrom(a);
    this.arrays.B.copyFrom(b);
    this.arrays.C.copyFrom(c);
  }

  /** Fills D with NaN, so that an output the kernels never write shows up as NaN. */
  poisonOutput(): void {
    this.arrays.D.fill(Number.NaN);
  }

  /** Copies D back to the host (this waits for the kernels). */
  readOutput(): Float32Array {
    return this.arrays.D.toTypedArray() as Float32Array;
  }

  /** The arrays in the order of the module's parameters (checked by gemmReluAddSize). */
  argsFor(params: readonly ParamSpec[]): NDArray[] {
    return params.map((p) => {
      if (!isOperand(p.name)) throw new Error(`gemm_relu_add has no parameter ${p.name}`);
      return this.arrays[p.name];
    });
  }

  dispose(): void {
    releaseAll(...OPERANDS.map((name) => this.arrays[name]));
  }
}
