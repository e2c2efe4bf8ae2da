/**
 * Property over shapes that the tiles do not divide: a tiled matmul (16×16 block tiles of 4×4
 * threads with 4×4 registers, k chunks of 4 staged in shared memory and registers) lowers to a
 * kernel whose padded tiles compute unguarded — the FMAs and the shared → register fetches carry
 * no guard, the global fetches zero-fill the padding — and simulates equal to the executor, with
 * no race and no read of never-written shared memory.
 */
import { cudaTarget, lower } from "@tessera/codegen";
import { type PrimFunc, type Stmt, forEachStmt, matmul } from "@tessera/ir";
import { type BlockRV, type LoopRV, Schedule } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareWithReference, formatComparison } from "../src/index.js";

const TILE = 16;
const THREADS = 4;
const K_CHUNK = 4;

function paddedMatmul(m: number, n: number, k: number): Schedule {
  const sch = new Schedule(matmul(m, n, k).func);
  const c = sch.getBlock("C");
  const [i, j, kk] = sch.getLoops(c) as [LoopRV, LoopRV, LoopRV];
  const [bx, tx, rx] = sch.split(i, [null, THREADS, TILE / THREADS]) as [LoopRV, LoopRV, LoopRV];
  const [by, ty, ry] = sch.split(j, [null, THREADS, TILE / THREADS]) as [LoopRV, LoopRV, LoopRV];
  const [ko, ki] = sch.split(kk, [null, K_CHUNK]) as [LoopRV, LoopRV];
  sch.reorder(bx, by, ko, tx, ty, ki, rx, ry);
  sch.bind(bx, "blockIdx.x");
  sch.bind(by, "blockIdx.y");
  sch.bind(tx, "threadIdx.x");
  sch.bind(ty, "threadIdx.y");
  const shared = [0, 1].map((operand) => sch.cacheRead(c, operand, "shared"));
  for (const stage of shared) sch.computeAt(stage, ko);
  const local = [0, 1].map((operand) => sch.cacheRead(c, operand, "local"));
  for (const stage of local) sch.computeAt(stage, ki);
  for (const stage of shared) spreadOverThreads(sch, stage);
  sch.reverseComputeAt(sch.cacheWrite(c, 0, "local"), ty);
  return sch;
}

function spreadOverThreads(sch: Schedule, stage: BlockRV): void {
  const [row, col] = sch.getLoops(stage).slice(-2) as [LoopRV, LoopRV];
  const [, x, y] = sch.split(sch.fuse(row, col), [null, THREADS, THREADS]) as [LoopRV, LoopRV, LoopRV];
  sch.bind(x, "threadIdx.x");
  sch.bind(y, "threadIdx.y");
}

/** Whether a store of a computed value (not an initialisation's constant) into `buffer` lies under an `if` in `body`. */
function guardedStoreInto(body: Stmt, buffer: string): boolean {
  let guarded = false;
  forEachStmt(body, (s) => {
    if (s.kind !== "IfThenElse") return;
    forEachStmt(s.thenCase, (t) => {
      if (t.kind === "BufferStore" && t.buffer.name === buffer && t.value.kind !== "FloatImm") guarded = true;
    });
  });
  return guarded;
}

const extent = fc.integer({ min: 17, max: 70 });

describe("padded tiles", () => {
  it("compute unguarded and simulate equal to the executor, for shapes the tiles do not divide", () => {
    let wholeChunks = 0;
    fc.assert(
      fc.property(extent, extent, fc.oneof(fc.integer({ min: 3, max: 24 }), fc.constantFrom(8, 12, 16)), fc.integer({ min: 1, max: 1000 }), (m, n, k, seed) => {
        const original: PrimFunc = matmul(m, n, k).func;
        const module = lower(paddedMatmul(m, n, k).func, cudaTarget("nvidia/h100"));
        const report = compareWithReference(module, original, { seed, rtol: 1e-4, atol: 1e-4 });
        expect(report.passed, formatComparison(report)).toBe(true);
        expect(report.simulation.raceCount).toBe(0);
        expect(report.simulation.uninitializedReadCount).toBe(0);
        // The register tile and its operands carry no guard once k is a whole number of chunks (a
        // k tail keeps the FMAs' own, and its shared tile is as short as the tail).
        if (k % K_CHUNK !== 0) return;
        wholeChunks++;
        const kernel = module.kernels[0]!.body;
        for (const buffer of ["C_local", "A_shared_local", "B_shared_local"]) expect(guardedStoreInto(kernel, buffer), buffer).toBe(false);
      }),
      { numRuns: 16, seed: 33 },
    );
    expect(wholeChunks).toBeGreaterThan(2);
  }, 300_000);
});
