/**
 * planBufferSwizzle / injectBufferSwizzle: a swizzled shared tile's cp.async writes and ldmatrix
 * row addresses both go through the XOR map (the simulator runs them: packages/simulator/test/mma/
 * swizzled-shared.test.ts), the ldmatrix pointer becomes the tile's base; a map that splits the
 * 16-byte vectors, or one that does not permute the compacted tile, is refused by name.
 */
import { SMALL_MMA_PARAMS, mmaGemmSchedule } from "@tessera/corpus";
import { type Call, add, bitwiseXor, floormod, forEachExpr, mul, printExpr, printStmt } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { LoweringError, codegenCuda, lower } from "../../src/index.js";

function calls(body: Parameters<typeof forEachExpr>[0], op: string): Call[] {
  const found: Call[] = [];
  forEachExpr(body, (e) => {
    if (e.kind === "Call" && e.op === op) found.push(e);
  });
  return found;
}

const PLAIN = { ...SMALL_MMA_PARAMS, padShared: false, pipelineStages: 2 } as const;

describe("swizzled shared tiles through the CUDA pipeline", () => {
  it("XORs the cp.async destinations and the ldmatrix rows, from the tile's base", () => {
    const module = lower(mmaGemmSchedule(64, { ...PLAIN, swizzle: true }), "nvidia/a100");
    const body = module.kernels[0]!.body;
    const copies = calls(body, "ptx_cp_async");
    const ldmatrix = calls(body, "ptx_legacy.ldmatrix");
    expect(copies.length).toBeGreaterThan(0);
    expect(ldmatrix.length).toBe(4);
    for (const c of copies) expect(printExpr(c.args[1]!)).toContain("T.bitwise_xor(");
    for (const l of ldmatrix) {
      expect(printExpr(l.args[6]!)).toContain("T.bitwise_xor(");
      expect(printExpr((l.args[5] as Call).args[2]!)).toMatch(/^0( \+ \d+)?$/);
    }
    expect(codegenCuda(module).source).toMatch(/\^/);
    // The plain kernel has no XOR anywhere.
    const plain = lower(mmaGemmSchedule(64, PLAIN), "nvidia/a100");
    expect(calls(plain.kernels[0]!.body, "bitwise_xor")).toEqual([]);
  });

  it("\"permuted\" (the search's choice, resolved on the compacted tile) lowers as the hand kernels' explicit maps", () => {
    const sch = mmaGemmSchedule(64, PLAIN);
    for (const name of ["A_shared", "B_shared"]) sch.swizzleLayout(sch.getBlock(name), 0, "permuted");
    expect(sch.trace.show()).toContain("sch.swizzleLayout(b");
    expect(sch.trace.show()).toContain(', 0, "permuted");');
    const explicit = lower(mmaGemmSchedule(64, { ...PLAIN, swizzle: true }), "nvidia/a100");
    expect(printStmt(lower(sch, "nvidia/a100").kernels[0]!.body)).toBe(printStmt(explicit.kernels[0]!.body));
  });

  it("refuses a map that splits the 16-byte vector stores, naming the access", () => {
    const sch = mmaGemmSchedule(64, { ...SMALL_MMA_PARAMS, padShared: false });
    // XOR of single elements with the row: a permutation, but 8-half vectors no longer contiguous.
    sch.swizzleLayout(sch.getBlock("A_shared"), 0, (r, c) => [r, bitwiseXor(c, floormod(r, 8))]);
    expect(() => lower(sch, "nvidia/a100")).toThrow(LoweringError);
    expect(() => lower(sch, "nvidia/a100")).toThrow(
      /injectBufferSwizzle: a store to A_shared reads or writes runs of 8 elements of A_shared, which its swizzle does not keep together/,
    );
  });

  it("checks the map on the compacted tile, whose shape the full-size buffer hid", () => {
    const sch = mmaGemmSchedule(64, { ...SMALL_MMA_PARAMS, padShared: false });
    // A permutation of the 64×64 buffer (columns XOR 32) that leaves the 32×32 compacted tile.
    sch.swizzleLayout(sch.getBlock("A_shared"), 0, (r, c) => [r, add(mul(0, r), bitwiseXor(c, 32))]);
    expect(() => lower(sch, "nvidia/a100")).toThrow(
      /planBufferSwizzle: the index map sends \[0, 0\] to \[0, 32\], outside the compacted buffer A_shared of shape \[32, 32\]/,
    );
  });
});
