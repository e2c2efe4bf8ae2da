/**
 * swizzleLayout: an XOR-permuted physical layout recorded on the block that writes a shared
 * buffer (lowering applies it; packages/simulator/test/mma/swizzled-shared.test.ts runs it), with
 * ScheduleErrors for maps that do not permute the buffer; and `sharedSwizzle`, the tensor-core
 * kernels' map, checked to permute tiles, keep 16-byte chunks whole and spread the 8 rows an
 * ldmatrix matrix reads over 8 distinct 16-byte bank groups.
 */
import { add, assertStructuralEqual, bitwiseXor, floordiv, floormod, mul, parsePrimFunc, printTVMScript, variable } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NonAllocatedBufferError, StorageAlignInvalidAnnotationError, SwizzleLayoutError } from "../src/error-catalogue.js";
import { Schedule, Trace, WGMMA_B_STAGE_K, checkSwizzle, indexMapFromAttr, sharedSwizzle, swizzleRunsContiguous, wgmmaSharedLayout } from "../src/index.js";
import { indexMapEvaluator, indexMapFromFn, indexMapToAttr } from "../src/primitives/layout/index-map.js";
import { expectScheduleError } from "./support.js";

const STAGED = (scope: string) => `
@T.prim_func
def main(A: T.Buffer((16, 64), "float16"), C: T.Buffer((16, 64), "float16")):
    S = T.alloc_buffer((16, 64), "float16", scope="${scope}")
    for i, j in T.grid(16, 64):
        with T.block("S"):
            vi, vj = T.axis.remap("SS", [i, j])
            S[vi, vj] = A[vi, vj]
    for i, j in T.grid(16, 64):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = S[vi, vj]
`;

const chunkXor = (r: ReturnType<typeof variable>, c: ReturnType<typeof variable>) => [
  r,
  add(mul(bitwiseXor(floordiv(c, 8), floormod(r, 8)), 8), floormod(c, 8)),
];

describe("swizzleLayout", () => {
  it("records the map on the writing block, leaves every access logical, and replays from a JSON trace", () => {
    const func = parsePrimFunc(STAGED("shared"));
    const sch = new Schedule(func);
    sch.swizzleLayout(sch.getBlock("S"), 0, (r, c) => [r, add(mul(bitwiseXor(floordiv(c, 8), floormod(r, 8)), 8), floormod(c, 8))]);
    const annotation = sch.get(sch.getBlock("S")).annotations["buffer_swizzle"] as readonly [number, unknown][];
    expect(annotation.map((e) => e[0])).toEqual([0]);
    const evaluate = indexMapEvaluator(annotation[0]![1]);
    expect(evaluate([3, 17])).toEqual([3, (2 ^ 3) * 8 + 1]);
    // Accesses stay logical: lowering applies the map to the flat offsets.
    const text = printTVMScript(sch.func);
    expect(text).toContain("S[vi, vj] = A[vi, vj]");
    expect(text).toContain("C[vi, vj] = S[vi, vj]");
    expect(text).toContain('S = T.alloc_buffer((16, 64), "float16", scope="shared")');
    expect(sch.trace.show()).toContain("sch.swizzleLayout(b0, 0, (r, c) => [r, add(mul(bitwiseXor(floordiv(c, 8), floormod(r, 8)), 8), floormod(c, 8))]);");
    const replayed = new Schedule(func);
    Trace.fromJSON(JSON.parse(JSON.stringify(sch.trace.toJSON()))).applyTo(replayed);
    assertStructuralEqual(replayed.func, sch.func, { compareNames: true });
  });

  it("refuses a map that sends two elements to one place, naming both", () => {
    const sch = new Schedule(parsePrimFunc(STAGED("shared")));
    const s = sch.getBlock("S");
    expectScheduleError(sch, () => sch.swizzleLayout(s, 0, (r, c) => [r, floormod(c, 32)]), SwizzleLayoutError, "it sends both [0, 0] and [0, 32] to [0, 0]");
  });

  it("checkSwizzle accepts exactly the bijections, and names the first two points that collide", () => {
    // The check as first written (every point's first preimage kept), against the one that finds
    // the earlier point again only when a collision needs it.
    const reference = (shape: readonly number[], attr: unknown): string | undefined => {
      const evaluate = indexMapEvaluator(attr);
      const firstAt = new Map<number, readonly number[]>();
      const points = shape.reduce((a, b) => a * b, 1);
      const index = shape.map(() => 0);
      for (let n = 0; n < points; n++) {
        const image = evaluate(index);
        if (image.some((x, d) => !Number.isInteger(x) || x < 0 || x >= shape[d]!)) return `sends [${index.join(", ")}] to [${image.join(", ")}], outside`;
        const flat = image.reduce((f, x, d) => f * shape[d]! + x, 0);
        const earlier = firstAt.get(flat);
        if (earlier !== undefined) return `it sends both [${earlier.join(", ")}] and [${index.join(", ")}] to [${image.join(", ")}]`;
        firstAt.set(flat, [...index]);
        for (let d = shape.length - 1; d >= 0 && ++index[d]! === shape[d]!; d--) index[d] = 0;
      }
      return undefined;
    };
    const pow2 = fc.constantFrom(1, 2, 4, 8, 16);
    fc.assert(
      fc.property(pow2, pow2, fc.constantFrom(1, 2, 4, 8), fc.constantFrom(1, 2, 4, 8), fc.integer({ min: 0, max: 3 }), (rows, cols, m, k, kind) => {
        const maps = [
          (r: ReturnType<typeof variable>, c: ReturnType<typeof variable>) => [r, add(mul(bitwiseXor(floordiv(c, k), floormod(r, m)), k), floormod(c, k))],
          (r: ReturnType<typeof variable>, c: ReturnType<typeof variable>) => [r, floormod(c, m)],
          (r: ReturnType<typeof variable>, c: ReturnType<typeof variable>) => [floormod(add(r, c), rows), c],
          (r: ReturnType<typeof variable>, c: ReturnType<typeof variable>) => [floordiv(r, m), bitwiseXor(c, floormod(r, k))],
        ];
        const attr = indexMapToAttr(indexMapFromFn(maps[kind]!, 2));
        const expected = reference([rows, cols], attr);
        let got: string | undefined;
        try {
          checkSwizzle("buffer S", [rows, cols], attr);
        } catch (err) {
          if (!(err instanceof SwizzleLayoutError)) throw err;
          got = err.message;
        }
        if (expected === undefined) expect(got).toBeUndefined();
        else expect(got).toContain(expected);
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a map whose image leaves the buffer", () => {
    const sch = new Schedule(parsePrimFunc(STAGED("shared")));
    const s = sch.getBlock("S");
    expectScheduleError(
      sch,
      () => sch.swizzleLayout(s, 0, (r, c) => [r, bitwiseXor(c, 64)]),
      SwizzleLayoutError,
      "the index map sends [0, 0] to [0, 64], outside buffer S of shape [16, 64]",
    );
  });

  it("refuses a map of the wrong arity, a buffer outside shared memory, a parameter", () => {
    const sch = new Schedule(parsePrimFunc(STAGED("shared")));
    const [s, c] = [sch.getBlock("S"), sch.getBlock("C")];
    expectScheduleError(
      sch,
      () => sch.swizzleLayout(s, 0, (r) => [r]),
      SwizzleLayoutError,
      "takes 1 and returns 1 indices but buffer S of shape [16, 64] has 2 dimensions",
    );
    const local = new Schedule(parsePrimFunc(STAGED("local")));
    const ls = local.getBlock("S");
    expectScheduleError(local, () => local.swizzleLayout(ls, 0, chunkXor), SwizzleLayoutError, 'is in "local" memory; only shared memory has banks');
    expectScheduleError(sch, () => sch.swizzleLayout(c, 0, chunkXor), NonAllocatedBufferError, "is not allocated by a block");
  });

  it("excludes storage_align on the same buffer, in either order", () => {
    const padded = new Schedule(parsePrimFunc(STAGED("shared")));
    const ps = padded.getBlock("S");
    padded.storageAlign(ps, 0, 0, 32, 8);
    expectScheduleError(padded, () => padded.swizzleLayout(ps, 0, chunkXor), SwizzleLayoutError, "a swizzled layout replaces the padding");
    const swizzled = new Schedule(parsePrimFunc(STAGED("shared")));
    const ss = swizzled.getBlock("S");
    swizzled.swizzleLayout(ss, 0, chunkXor);
    expectScheduleError(swizzled, () => swizzled.storageAlign(ss, 0, 0, 32, 8), StorageAlignInvalidAnnotationError, "a swizzled layout is not padded");
  });
});

describe("sharedSwizzle (the tensor-core kernels' map)", () => {
  const [r, c] = [variable("r", "int32"), variable("c", "int32")];
  const cases = fc.record({ chunksLog2: fc.integer({ min: 0, max: 5 }), elementBytes: fc.constantFrom(2, 4), rowGroups: fc.integer({ min: 1, max: 4 }) });

  it("permutes the tile, keeps 16-byte chunks whole, and puts the 8 rows of an ldmatrix matrix in 8 bank groups", () => {
    fc.assert(
      fc.property(cases, ({ chunksLog2, elementBytes, rowGroups }) => {
        const chunks = 1 << chunksLog2;
        const vector = 16 / elementBytes;
        const shape = [8 * rowGroups, chunks * vector];
        const attr = indexMapToAttr(indexMapFromFn(sharedSwizzle(shape[1]!, elementBytes), 2));
        checkSwizzle("the tile", shape, attr);
        expect(swizzleRunsContiguous(shape, attr, vector)).toBe(true);
        const evaluate = indexMapEvaluator(attr);
        for (let row0 = 0; row0 < shape[0]!; row0 += 8)
          for (let chunk = 0; chunk < chunks; chunk++) {
            // The 16-byte group of bank space (128 bytes = 8 groups) each of the 8 rows lands in.
            const groups = Array.from({ length: 8 }, (_, k) => {
              const [pr, pc] = evaluate([row0 + k, chunk * vector]);
              return ((pr! * shape[1]! + pc!) / vector) % 8;
            });
            // Rows of one chunk share a line (16 bytes each, 128 contiguous bytes): conflict-free already.
            if (chunks >= 2) expect(new Set(groups).size).toBe(8);
          }
      }),
      { numRuns: 30 },
    );
    expect(indexMapFromAttr(indexMapToAttr(indexMapFromFn(sharedSwizzle(64, 2), 2))).results.length).toBe(2);
    expect(sharedSwizzle(64, 2)(r, c).length).toBe(2);
  });

  it("refuses rows that are not whole 16-byte chunks; permutes rows of 3 or 6 chunks too", () => {
    expect(() => sharedSwizzle(12, 2)).toThrow(/rows of 12 2-byte elements are not whole 16-byte chunks/);
    for (const row of [24, 48]) checkSwizzle("the tile", [16, row], indexMapToAttr(indexMapFromFn(sharedSwizzle(row, 2), 2)));
  });
});

describe("wgmmaSharedLayout's MN-major B (the layout the wgmma descriptor and TMA boxes read)", () => {
  // Byte offset of B[k][j] as the wgmma descriptor reads it: panel j/64 LBO apart, 8-row atom k/8 SBO
  // apart, 128-byte row k%8, and the hardware's 128-byte swizzle (16-byte chunk XOR row within the atom).
  const LBO = WGMMA_B_STAGE_K * 128;
  const SBO = 1024;
  const described = (k: number, j: number): number =>
    Math.floor(j / 64) * LBO + Math.floor(k / 8) * SBO + (k % 8) * 128 + ((Math.floor((j % 64) / 8) ^ (k % 8)) * 8 + (j % 8)) * 2;

  for (const cols of [64, 128, 256]) {
    it(`stores a ${WGMMA_B_STAGE_K}×${cols} stage where the descriptor reads it: each 64-column panel's rows in order`, () => {
      const shape = [WGMMA_B_STAGE_K, cols];
      const attr = indexMapToAttr(indexMapFromFn(wgmmaSharedLayout("B", WGMMA_B_STAGE_K, cols), 2));
      checkSwizzle("the B tile", shape, attr);
      const evaluate = indexMapEvaluator(attr);
      for (let k = 0; k < WGMMA_B_STAGE_K; k++)
        for (let j = 0; j < cols; j++) {
          const [pr, pc] = evaluate([k, j]);
          expect((pr! * cols + pc!) * 2).toBe(described(k, j));
        }
    });
  }

  it("permutes a larger buffer (a cache read's full shape before compaction) stage by stage", () => {
    const attr = indexMapToAttr(indexMapFromFn(wgmmaSharedLayout("B", WGMMA_B_STAGE_K, 128), 2));
    checkSwizzle("the whole B", [4 * WGMMA_B_STAGE_K, 256], attr);
    const evaluate = indexMapEvaluator(attr);
    // Element (64 + 3, 128 + 70) lands in the second stage's rows, the second 128-column block's panel 1.
    const [pr, pc] = evaluate([WGMMA_B_STAGE_K + 3, 128 + 70]);
    expect(Math.floor(pr! / WGMMA_B_STAGE_K)).toBe(1);
    expect(Math.floor(pc! / 128)).toBe(1);
    expect(((pr! % WGMMA_B_STAGE_K) * 128 + (pc! % 128)) * 2).toBe(described(3, 70));
  });

  it("refuses a tile whose rows are not one stage or whose columns are not whole panels, naming the shape", () => {
    expect(() => wgmmaSharedLayout("B", 32, 256)).toThrow(/needs 64 rows .* got 32×256/);
    expect(() => wgmmaSharedLayout("B", 64, 96)).toThrow(/multiple of 64 columns, got 64×96/);
  });
});
