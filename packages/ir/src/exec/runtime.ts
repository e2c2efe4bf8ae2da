/**
 * The helpers that generated code calls at run time. Errors name the IR expression or access
 * that failed, found through a per-function table of error sites indexed by the generated code.
 */
import { ExecutionError } from "./errors.js";
import { roundHalfAwayFromZero } from "./numeric.js";
import { roundToBFloat16, roundToFloat16, roundToTF32, truncateToTF32 } from "./half-precision.js";
import { type AsyncCopyQueue, ImmediateCopies } from "./async-copies.js";

export type ErrorSite =
  | { readonly kind: "division"; readonly text: string; readonly where: string }
  | {
      readonly kind: "access";
      readonly access: "load" | "store";
      readonly bufferName: string;
      readonly text: string;
      readonly where: string;
    };

/** Collects the error sites of one function; generated code refers to them by index. */
export class ErrorSiteTable {
  readonly sites: ErrorSite[] = [];

  add(site: ErrorSite): number {
    this.sites.push(site);
    return this.sites.length - 1;
  }
}

/** The object passed to the generated code as `$rt`; the names are what the emitters reference. */
export interface ExecRuntime {
  /** Integer C division (truncation); the caller wraps the result to its dtype. */
  readonly divTrunc: (a: number, b: number, site: number) => number;
  /** Integer C remainder: the sign follows the dividend. */
  readonly modTrunc: (a: number, b: number, site: number) => number;
  readonly divFloor: (a: number, b: number, site: number) => number;
  readonly modFloor: (a: number, b: number, site: number) => number;
  /** Float floormod `a - floor(a / b) * b`, rounding every step to the dtype's precision. */
  readonly floorModF16: (a: number, b: number) => number;
  readonly floorModF32: (a: number, b: number) => number;
  readonly floorModF64: (a: number, b: number) => number;
  readonly floorModBF16: (a: number, b: number) => number;
  readonly toFloat16: (x: number) => number;
  readonly toBFloat16: (x: number) => number;
  /** `T.tf32_round`: see `roundToTF32`. */
  readonly toTF32: (x: number) => number;
  /** `T.tf32_truncate`: see `truncateToTF32`. */
  readonly truncateTF32: (x: number) => number;
  readonly roundHalfAway: (x: number) => number;
  /** A failed `assert cond, "message"` (T.assert). */
  readonly assertFailed: (message: string) => never;
  /** `Select`: both branches are evaluated as arguments before one is picked. */
  readonly select: <T>(condition: boolean, t: T, f: T) => T;
  readonly outOfBounds: (site: number, indices: readonly number[], shape: readonly number[]) => never;
  /** A thread's queue of asynchronous copies (`$async`, created where a function uses T.ptx_cp_async). */
  readonly asyncCopies: () => AsyncCopyQueue;
}

export function makeRuntime(table: ErrorSiteTable): ExecRuntime {
  const divisionByZero = (siteIndex: number): ExecutionError => {
    const site = table.sites[siteIndex];
    const text = site === undefined ? "an integer division" : `${site.text}${site.where}`;
    return new ExecutionError(`integer division by zero in ${text}`);
  };
  return {
    divTrunc(a, b, site) {
      if (b === 0) throw divisionByZero(site);
      return Math.trunc(a / b) + 0; // `+ 0` turns -0 into 0
    },
    modTrunc(a, b, site) {
      if (b === 0) throw divisionByZero(site);
      return (a % b) + 0;
    },
    divFloor(a, b, site) {
      if (b === 0) throw divisionByZero(site);
      return Math.floor(a / b) + 0;
    },
    modFloor(a, b, site) {
      if (b === 0) throw divisionByZero(site);
      const r = a % b;
      return (r !== 0 && r < 0 !== b < 0 ? r + b : r) + 0;
    },
    floorModF16: (a, b) => roundToFloat16(a - roundToFloat16(Math.floor(roundToFloat16(a / b)) * b)),
    floorModF32: (a, b) => Math.fround(a - Math.fround(Math.floor(Math.fround(a / b)) * b)),
    floorModF64: (a, b) => a - Math.floor(a / b) * b,
    floorModBF16: (a, b) => roundToBFloat16(a - roundToBFloat16(Math.floor(roundToBFloat16(a / b)) * b)),
    toFloat16: roundToFloat16,
    toBFloat16: roundToBFloat16,
    toTF32: roundToTF32,
    truncateTF32: truncateToTF32,
    roundHalfAway: roundHalfAwayFromZero,
    assertFailed(message) {
      throw new ExecutionError(`assertion failed${message === "" ? "" : `: ${message}`}`);
    },
    select: (condition, t, f) => (condition ? t : f),
    asyncCopies: () => new ImmediateCopies(table),
    outOfBounds(siteIndex, indices, shape) {
      const site = table.sites[siteIndex];
      if (site === undefined || site.kind !== "access") {
        throw new ExecutionError(`out-of-bounds access at indices [${indices.join(", ")}], shape [${shape.join(", ")}]`);
      }
      throw new ExecutionError(
        `out-of-bounds ${site.access} ${site.access === "load" ? "from" : "to"} buffer ${site.bufferName}: ` +
          `indices [${indices.join(", ")}] are outside its shape [${shape.join(", ")}] (in ${site.text}${site.where})`,
      );
    },
  };
}
