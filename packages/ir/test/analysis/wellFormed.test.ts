import { describe, expect, it } from "vitest";
import { declBuffer } from "../../src/buffer.js";
import { add, bufferLoad, variable } from "../../src/expr.js";
import { primFunc, type PrimFunc } from "../../src/func.js";
import { type Stmt, block, blockRealize, bufferStore, forLoop, letStmt, seq } from "../../src/stmt.js";
import { WellFormedError, verifyWellFormed } from "../../src/analysis/index.js";
import { IRError } from "../../src/errors.js";
import { matmulFunc, spatialIter } from "./fixtures.js";

const n = variable("n");
const A = declBuffer("A", [n]);
const B = declBuffer("B", [n]);

function funcWith(body: Stmt): PrimFunc {
  const a = variable("a", "handle");
  const b = variable("b", "handle");
  return primFunc(
    [a, b],
    new Map([
      [a, A],
      [b, B],
    ]),
    blockRealize([], true, block({ name: "root", body })),
  );
}

/** `for i in range(n): with block(name): vi = i; B[vi] = A[vi]`. */
function copyLoop(name: string, loopVar = variable("i")): { stmt: Stmt; vi: ReturnType<typeof variable> } {
  const { v: vi, iv } = spatialIter("vi", n);
  const blk = block({ name, iterVars: [iv], body: bufferStore(B, bufferLoad(A, [vi]), [vi]) });
  return { stmt: forLoop(loopVar, n, blockRealize([loopVar], true, blk)), vi };
}

describe("verifyWellFormed", () => {
  it("accepts well-formed functions, with shape variables of parameters in scope", () => {
    expect(() => verifyWellFormed(matmulFunc().func)).not.toThrow();
    expect(() => verifyWellFormed(funcWith(copyLoop("copy").stmt))).not.toThrow();
    const t = variable("t");
    expect(() => verifyWellFormed(funcWith(letStmt(t, n, copyLoop("copy").stmt)))).not.toThrow();
  });

  it("reports an undefined variable", () => {
    const m = variable("m");
    const i = variable("i");
    const f = funcWith(forLoop(i, m, bufferStore(B, bufferLoad(A, [i]), [i])));
    expect(() => verifyWellFormed(f)).toThrow(WellFormedError);
    expect(() => verifyWellFormed(f)).toThrow(/variable m is used but not defined/);
  });

  it("reports a loop variable used after its loop", () => {
    const i = variable("i");
    const f = funcWith(seq([forLoop(i, n, bufferStore(B, 0, [i])), bufferStore(B, 1, [i])]));
    expect(() => verifyWellFormed(f)).toThrow(/variable i is used but not defined/);
  });

  it("reports a block iter var used outside its block", () => {
    const { stmt, vi } = copyLoop("copy");
    const f = funcWith(seq([stmt, bufferStore(B, 0, [vi])]));
    expect(() => verifyWellFormed(f)).toThrow(/iter var vi of block "copy" is used outside its block/);
  });

  it("reports bindings that use the block's own iter vars", () => {
    const { v: vi, iv } = spatialIter("vi", n);
    const blk = block({ name: "self", iterVars: [iv], body: bufferStore(B, 0, [vi]) });
    const f = funcWith(blockRealize([add(vi, 0)], true, blk));
    expect(() => verifyWellFormed(f)).toThrow(/binding of iter var vi uses the block's own iter var vi.*block "self"/);
  });

  it("accepts duplicate block names, as TVM does (cache_read of one buffer for two consumers)", () => {
    const f = funcWith(seq([copyLoop("copy").stmt, copyLoop("copy").stmt]));
    expect(() => verifyWellFormed(f)).not.toThrow();
  });

  it("reports a loop variable defined twice", () => {
    const i = variable("i");
    const nested = funcWith(forLoop(i, n, forLoop(i, n, bufferStore(B, 0, [i]))));
    expect(() => verifyWellFormed(nested)).toThrow(/loop variable i is defined twice/);
    const siblings = funcWith(seq([forLoop(i, n, bufferStore(B, 0, [i])), forLoop(i, n, bufferStore(B, 1, [i]))]));
    expect(() => verifyWellFormed(siblings)).toThrow(/loop variable i is defined twice/);
  });

  it("raises errors that are IRErrors", () => {
    const m = variable("m");
    try {
      verifyWellFormed(funcWith(bufferStore(B, 0, [m])));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(IRError);
      expect((e as Error).message).toMatch(/in block "root"/);
    }
  });
});
