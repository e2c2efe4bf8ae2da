/**
 * A tile split that over-computes (32 tiles of 64 rows for 256 rows) leaves predicates on the shared
 * copy and on the consumer, written with their sums associated differently
 * (`i_0*64 + ax0 < 256` against `i_0*64 + (i_1_0*4 + i_1_1) < 256`). A second cache stage of the
 * shared copy must still see the copy covering what the consumer reads (regression: the bounds were
 * matched by the expressions' structure, and the consumer's went unnarrowed).
 */
import { gemmReluAdd, runPrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { Schedule } from "../src/index.js";

const N = 64;

function overcomputedTiles(): Schedule {
  const sch = new Schedule(gemmReluAdd(N).func);
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm);
  const [i0, i1] = sch.split(i!, [8, 16]); // 128 rows of tiles for 64 rows
  const [j0, j1] = sch.split(j!, [null, 16]);
  const [k0, k1] = sch.split(k!, [null, 16]);
  sch.reorder(i0!, j0!, k0!, i1!, j1!, k1!);
  sch.bind(i0!, "blockIdx.x");
  sch.bind(j0!, "blockIdx.y");
  for (const operand of [0, 1]) sch.computeAt(sch.cacheRead(gemm, operand, "shared"), k0!);
  const [t0, t1] = sch.split(i1!, [null, 4]);
  const [u0, u1] = sch.split(j1!, [null, 4]);
  sch.reorder(t0!, u0!, k1!, t1!, u1!);
  sch.bind(t0!, "threadIdx.x");
  sch.bind(u0!, "threadIdx.y");
  return sch;
}

describe("cacheRead of a shared copy under over-computing tiles", () => {
  it("finds the copy covering the consumer's read and keeps the results", () => {
    const sch = overcomputedTiles();
    const local = sch.cacheRead(sch.getBlock("gemm"), 0, "local");
    sch.computeAt(local, sch.getLoops(sch.getBlock("gemm")).at(-3)!);
    const args = () => [0, 1, 2, 3].map((s) => Float32Array.from({ length: N * N }, (_, e) => ((e * 7 + s * 13) % 17) / 8 - 1));
    const want = args();
    runPrimFunc(gemmReluAdd(N).func, want);
    const got = args();
    runPrimFunc(sch.func, got);
    expect(Array.from(got[3]!)).toEqual(Array.from(want[3]!));
  });
});
