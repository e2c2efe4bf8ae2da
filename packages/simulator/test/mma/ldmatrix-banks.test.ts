/**
 * The bank-conflict report covers ldmatrix: each 8-lane phase reads one 8×8 matrix, 8 rows of 16
 * bytes. With rows padded to 40 halves (80 bytes) the rows of a matrix fall in 8 distinct bank
 * groups (one wavefront per matrix); unpadded 32-half rows (64 bytes) put 4 rows in each of 2
 * groups: 4 wavefronts per matrix.
 */
import { lower } from "@tessera/codegen";
import { SMALL_MMA_PARAMS, mmaGemm, mmaGemmSchedule } from "@tessera/corpus";
import { randomArgs } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { simulate } from "../../src/index.js";

function ldmatrixRows(padShared: boolean) {
  const module = lower(mmaGemmSchedule(32, { ...SMALL_MMA_PARAMS, padShared }), "nvidia/a100");
  const report = simulate(module, randomArgs(mmaGemm(32), 1), { bankConflicts: true });
  return report.bankConflicts!.sites.filter((s) => s.text.startsWith("T.ptx_legacy.ldmatrix"));
}

describe("ldmatrix in the bank-conflict report", () => {
  it("padded rows: one wavefront per matrix, no conflict", () => {
    const rows = ldmatrixRows(true);
    expect(rows.map((r) => r.buffer)).toEqual(["A_shared", "B_shared"]);
    for (const r of rows) {
      // One block of 4 warps × 2 k tiles: 8 ldmatrix.x4 of 4 matrices each.
      expect(r.instructions).toBe(8);
      expect(r.idealWavefronts).toBe(32);
      expect(r.conflicts).toBe(0);
      expect(r.worstWay).toBe(1);
    }
  });

  it("unpadded 64-byte rows: 4-way conflicts", () => {
    for (const r of ldmatrixRows(false)) {
      expect(r.wavefronts).toBe(4 * r.idealWavefronts);
      expect(r.worstWay).toBe(4);
    }
  });
});
