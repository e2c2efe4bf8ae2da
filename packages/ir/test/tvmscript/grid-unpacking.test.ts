/** `for` targets of T.grid unpacked as Python does: `*rest`, or one name for all loop variables. */
import { describe, expect, it } from "vitest";
import { parsePrimFunc } from "../../src/parser/index.js";
import { printTVMScript } from "../../src/printer/index.js";
import { structuralEqual } from "../../src/structural/index.js";
import { compilePrimFunc } from "../../src/exec/index.js";
import { errorOf } from "./helpers.js";

const fn = (...body: string[]): string =>
  ["@T.prim_func", 'def f(A: T.Buffer((2, 3, 4), "int32"), B: T.Buffer((2, 3), "int32")):', ...body.map((l) => `    ${l}`)].join("\n");

const explicit = fn("for i, j, k in T.grid(2, 3, 4):", "    B[i, j] = B[i, j] + A[i, j, k]");

describe("T.grid targets", () => {
  it("*rest takes the extents the other names leave; it indexes and splices as a tuple", () => {
    const starred = parsePrimFunc(fn("for *ij, k in T.grid(*A.shape):", "    B[ij] = B[ij] + A[(*ij, k)]"));
    expect(structuralEqual(starred, parsePrimFunc(explicit))).toBe(true);
    const printed = printTVMScript(starred);
    expect(printed).toContain("for ij_0, ij_1, k in T.grid(2, 3, 4):");
    expect(structuralEqual(parsePrimFunc(printed), starred)).toBe(true);
  });

  it("one name takes all loop variables", () => {
    const whole = parsePrimFunc(fn("for ijk in T.grid(2, 3, 4):", "    A[ijk] = 1"));
    expect(structuralEqual(whole, parsePrimFunc(fn("for i, j, k in T.grid(2, 3, 4):", "    A[i, j, k] = 1")))).toBe(true);
  });

  it("runs as the written-out nest", () => {
    const a = Int32Array.from({ length: 24 }, (_, i) => i * 7 - 50);
    const run = (text: string): number[] => {
      const b = new Int32Array(6);
      compilePrimFunc(parsePrimFunc(text)).run([a, b]);
      return [...b];
    };
    expect(run(fn("for i, *jk in T.grid(2, 3, 4):", "    B[i, jk[0]] = B[i, jk[0]] + A[(i, *jk)]"))).toEqual(run(explicit));
  });

  it("names the mismatch", () => {
    expect(errorOf(fn("for i, j in T.grid(2, 3, 4):", "    A[i, j, 0] = 1")).reason).toBe("T.grid has 3 extents but 2 loop variables are given");
    expect(errorOf(fn("for i, j, k, *l in T.grid(2, 3):", "    A[i, j, 0] = 1")).reason).toBe("T.grid has 2 extents but at least 3 loop variables are given");
    expect(errorOf(fn("for *i, *j in T.grid(2, 3):", "    B[i, j] = 1")).reason).toBe("only one loop variable may be starred");
  });
});
