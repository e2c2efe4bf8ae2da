import { forEachExpr, forEachStmt, type PrimFunc } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { LoweringError } from "../../src/lower/errors.js";
import { vectorizeLoopPass } from "../../src/lower/passes/vectorize-loop.js";
import { CTX, errorOf, expectSameResults, expectScript, parse, print, runPass } from "./helpers.js";

const HEADER = `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "main"})
    blockIdx_x = T.launch_thread("blockIdx.x", 4)
    threadIdx_x = T.launch_thread("threadIdx.x", 4)`;

/** A function whose body (inside the launch attributes) is `body`, indented by four spaces. */
function withBody(body: string): string {
  return `${HEADER}\n${body.replace(/^\n+/, "").replace(/^/gm, "    ")}\n`;
}

function loopKinds(f: PrimFunc): string[] {
  const kinds: string[] = [];
  forEachStmt(f.body, (s) => {
    if (s.kind === "For") kinds.push(s.forKind);
  });
  return kinds;
}

describe("vectorizeLoop", () => {
  test("extent 4 on float32: Ramp indices, float32x4 values, Broadcast of invariant scalars", () => {
    const before = withBody(`
for v in T.vectorized(4):
    C[blockIdx_x * 16 + threadIdx_x * 4 + v] = A[blockIdx_x * 16 + threadIdx_x * 4 + v] + B[blockIdx_x * 16 + threadIdx_x * 4 + v] * T.float32(2)`);
    const after = runPass(vectorizeLoopPass, before);
    expectScript(
      after,
      withBody(`
C[blockIdx_x * 16 + threadIdx_x * 4:blockIdx_x * 16 + threadIdx_x * 4 + 4] = A[blockIdx_x * 16 + threadIdx_x * 4:blockIdx_x * 16 + threadIdx_x * 4 + 4] + B[blockIdx_x * 16 + threadIdx_x * 4:blockIdx_x * 16 + threadIdx_x * 4 + 4] * T.Broadcast(T.float32(2.0), 4)`),
    );
    const dtypes = new Set<string>();
    forEachStmt(after.body, (s) => {
      if (s.kind === "BufferStore") {
        dtypes.add(s.value.dtype);
        expect(s.indices[0]!.kind).toBe("Ramp");
      }
    });
    expect([...dtypes]).toEqual(["float32x4"]);
    expectSameResults(after, parse(before));
  });

  test("a loop-invariant load is loaded once and broadcast; a non-zero loop minimum shifts the Ramp base", () => {
    const before = withBody(`
for v in T.vectorized(4):
    C[threadIdx_x * 8 + v] = A[threadIdx_x * 8 + v] * B[blockIdx_x]`);
    const after = runPass(vectorizeLoopPass, before);
    expectScript(after, withBody(`C[threadIdx_x * 8:threadIdx_x * 8 + 4] = A[threadIdx_x * 8:threadIdx_x * 8 + 4] * T.Broadcast(B[blockIdx_x], 4)`));
    expectSameResults(after, parse(before));
  });

  test("float64 with 2 lanes fits 16 bytes and is vectorized", () => {
    const src = `
@T.prim_func
def main(A: T.Buffer((8,), "float64"), B: T.Buffer((8,), "float64")):
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    for v in T.vectorized(2):
        B[threadIdx_x * 2 + v] = A[threadIdx_x * 2 + v]`;
    const after = runPass(vectorizeLoopPass, src);
    expect(loopKinds(after)).toEqual([]);
    expect(print(after)).toContain("B[threadIdx_x * 2:threadIdx_x * 2 + 2] = A[threadIdx_x * 2:threadIdx_x * 2 + 2]");
  });

  describe("falls back to a serial loop", () => {
    const cases: Record<string, string> = {
      "wider than float4 (8 × float32 = 32 bytes)": `
for v in T.vectorized(8):
    C[threadIdx_x * 8 + v] = A[threadIdx_x * 8 + v]`,
      "a non-contiguous access (stride 2)": `
for v in T.vectorized(4):
    C[threadIdx_x * 8 + v] = A[threadIdx_x * 8 + v * 2]`,
      "a non-affine index": `
for v in T.vectorized(4):
    C[threadIdx_x * 8 + v] = A[threadIdx_x * 8 + v // 2]`,
      "a store that does not move with the loop": `
for v in T.vectorized(4):
    C[threadIdx_x] = A[threadIdx_x * 4 + v]`,
      "a body that is not a sequence of stores": `
for v in T.vectorized(4):
    if v < 3:
        C[threadIdx_x * 4 + v] = A[threadIdx_x * 4 + v]`,
      "a lane reading what another lane stores": `
for v in T.vectorized(4):
    C[threadIdx_x * 4 + v + 1] = C[threadIdx_x * 4 + v] + A[v]`,
    };
    for (const [what, body] of Object.entries(cases)) {
      test(what, () => {
        const before = withBody(body);
        const after = runPass(vectorizeLoopPass, before);
        expect(loopKinds(after)).toContain("serial");
        expect(loopKinds(after)).not.toContain("vectorized");
        let vectors = 0;
        forEachExpr(after.body, (e) => {
          if (e.kind === "Ramp" || e.kind === "Broadcast") vectors++;
        });
        expect(vectors).toBe(0);
        expectSameResults(after, parse(before));
      });
    }
  });

  describe("alignment of 64- and 128-bit accesses", () => {
    test("an access whose first lane is not provably a multiple of the lane count is refused, naming the loop and the access", () => {
      const before = withBody(`
for v in T.vectorized(4):
    C[threadIdx_x * 8 + v] = A[threadIdx_x * 8 + v + 2]`);
      expect(errorOf(() => runPass(vectorizeLoopPass, before), LoweringError).message).toBe(
        "vectorizeLoop: loop v is vectorized 4 wide, but its load of A[threadIdx_x * 8 + 2 : +4] cannot be proven 16-byte aligned " +
          "(threadIdx_x * 8 + 2 is not provably a multiple of 4); a 16-byte vector access needs an aligned address: " +
          "choose tiles so that every vector starts at a multiple of 4 elements, or unroll the loop instead of vectorizing it",
      );
    });

    test("a store through a symbolic stride is refused too", () => {
      const src = `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), n: T.int32):
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    for v in T.vectorized(2):
        C[threadIdx_x * n + v] = A[threadIdx_x * 2 + v]`;
      expect(errorOf(() => runPass(vectorizeLoopPass, src), LoweringError).message).toMatch(
        /its store to C\[threadIdx_x \* n : \+2\] cannot be proven 8-byte aligned/,
      );
    });

    test("proofs go through products and sums: offsets that are multiples of the lanes are accepted", () => {
      const before = withBody(`
for v in T.vectorized(2):
    C[threadIdx_x * 6 + 2 + v] = A[(blockIdx_x * 3 + threadIdx_x) * 4 + v] + B[threadIdx_x % 2 * 2 + v]`);
      const after = runPass(vectorizeLoopPass, before);
      expect(loopKinds(after)).toEqual([]);
      expectSameResults(after, parse(before));
    });

    test("accesses that are not one wide instruction need no alignment (2 × int8, strided lanes, broadcasts)", () => {
      const src = `
@T.prim_func
def main(A: T.Buffer((64,), "int8"), C: T.Buffer((64,), "int8")):
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    for v in T.vectorized(2):
        C[threadIdx_x * 8 + 1 + v] = A[threadIdx_x * 8 + 3 + v]`;
      expect(loopKinds(runPass(vectorizeLoopPass, src))).toEqual([]);
    });
  });

  describe("guards the lanes agree on (a padded tile's fetch)", () => {
    test("a bound and a lane base that are multiples of the lanes: one guard per vector, taken at the first lane", () => {
      const before = withBody(`
for v in T.vectorized(4):
    if blockIdx_x * 16 + threadIdx_x * 4 + v < 52:
        C[blockIdx_x * 16 + threadIdx_x * 4 + v] = A[blockIdx_x * 16 + threadIdx_x * 4 + v]`);
      const after = runPass(vectorizeLoopPass, before);
      expectScript(
        after,
        withBody(`
if blockIdx_x * 16 + threadIdx_x * 4 < 52:
    C[blockIdx_x * 16 + threadIdx_x * 4:blockIdx_x * 16 + threadIdx_x * 4 + 4] = A[blockIdx_x * 16 + threadIdx_x * 4:blockIdx_x * 16 + threadIdx_x * 4 + 4]`),
      );
      expectSameResults(after, parse(before));
    });

    test("nested guards, one independent of the lane and one through >= with a falling lane value", () => {
      const before = withBody(`
for v in T.vectorized(2):
    if blockIdx_x < 3:
        if 40 - (threadIdx_x * 2 + v) >= 35:
            C[threadIdx_x * 2 + v] = A[threadIdx_x * 2 + v] + T.float32(1)`);
      const after = runPass(vectorizeLoopPass, before);
      expect(loopKinds(after)).toEqual([]);
      expectSameResults(after, parse(before));
    });

    test("a zero-filled fetch (if_then_else of a guarded load) becomes a vector load or a vector of zeros", () => {
      const before = withBody(`
for v in T.vectorized(4):
    C[threadIdx_x * 4 + v] = T.if_then_else(blockIdx_x * 16 + threadIdx_x * 4 + v < 52, A[blockIdx_x * 12 + threadIdx_x * 4 + v], T.float32(0))`);
      const after = runPass(vectorizeLoopPass, before);
      expectScript(
        after,
        withBody(`
if blockIdx_x * 16 + threadIdx_x * 4 < 52:
    C[threadIdx_x * 4:threadIdx_x * 4 + 4] = A[blockIdx_x * 12 + threadIdx_x * 4:blockIdx_x * 12 + threadIdx_x * 4 + 4]
else:
    C[threadIdx_x * 4:threadIdx_x * 4 + 4] = T.Broadcast(T.float32(0.0), 4)`),
      );
      expectSameResults(after, parse(before));
    });

    test("a bound that splits a vector keeps the loop serial", () => {
      const before = withBody(`
for v in T.vectorized(4):
    if blockIdx_x * 16 + threadIdx_x * 4 + v < 50:
        C[blockIdx_x * 16 + threadIdx_x * 4 + v] = A[blockIdx_x * 16 + threadIdx_x * 4 + v]`);
      const after = runPass(vectorizeLoopPass, before);
      expect(loopKinds(after)).toEqual(["serial"]);
      expectSameResults(after, parse(before));
    });

    test("property: a guard is kept per vector only where every lane agrees, and results never change", () => {
      const ops = ["<", "<=", ">", ">="] as const;
      fc.assert(
        fc.property(
          fc.constantFrom(2, 4),
          fc.constantFrom(...ops),
          fc.integer({ min: 0, max: 64 }),
          fc.constantFrom(1, -1),
          fc.integer({ min: 0, max: 1000 }),
          (lanes, op, bound, direction, seed) => {
            const lane = direction === 1 ? `threadIdx_x * 4 + v` : `63 - (threadIdx_x * 4 + v)`;
            const before = withBody(`
for v in T.vectorized(${lanes}):
    if ${lane} ${op} ${bound}:
        C[threadIdx_x * 4 + v] = A[threadIdx_x * 4 + v]`);
            const original = parse(before);
            const after = runPass(vectorizeLoopPass, original);
            expectSameResults(after, original, seed);
            // Brute force: do the lanes of every thread agree on the guard?
            const holds = (x: number): boolean => (op === "<" ? x < bound : op === "<=" ? x <= bound : op === ">" ? x > bound : x >= bound);
            let agree = true;
            for (let t = 0; t < 4; t++) {
              const values = Array.from({ length: lanes }, (_, v) => holds(direction === 1 ? t * 4 + v : 63 - (t * 4 + v)));
              if (values.some((b) => b !== values[0])) agree = false;
            }
            if (!agree) expect(loopKinds(after)).toEqual(["serial"]);
          },
        ),
        { numRuns: 60 },
      );
    });
  });

  test("a function without vectorized loops is returned unchanged", () => {
    const f = parse(withBody(`C[threadIdx_x] = A[threadIdx_x]`));
    expect(vectorizeLoopPass.run(f, CTX)).toBe(f);
  });

  test("property: vectorizing preserves sequential results (offsets, scales, lane counts)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8 }),
        fc.constantFrom(1, 2, 3, 4, 8),
        fc.integer({ min: -3, max: 3 }),
        fc.integer({ min: 0, max: 1000 }),
        (offset, lanes, scale, seed) => {
          const before = withBody(`
for v in T.vectorized(${lanes}):
    C[threadIdx_x * 8 + v + ${offset}] = A[threadIdx_x * 8 + v] * T.float32(${scale}) + B[blockIdx_x * 8 + v + ${offset}] - A[${offset}]`);
          const original = parse(before);
          // 2 or 4 float32 lanes are one 8- or 16-byte access: an offset that breaks its alignment is refused.
          if ((lanes === 2 || lanes === 4) && offset % lanes !== 0) {
            expect(errorOf(() => runPass(vectorizeLoopPass, original), LoweringError).message).toMatch(
              /^vectorizeLoop: loop v is vectorized \d wide, but its store to C\[/,
            );
            return;
          }
          expectSameResults(runPass(vectorizeLoopPass, original), original, seed);
        },
      ),
      { numRuns: 40 },
    );
  });
});
