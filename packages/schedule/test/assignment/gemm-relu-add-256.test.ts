/**
 * The course assignment (mlsys assignment 2, part 1) at M = N = K = 256, written the way a student
 * writes it, on our `gemmReluAdd(256)`: the naive GPU schedule and the complete manual schedule
 * (shared-memory tiling, register tiling, cooperative fetching, write cache, epilogue fusion).
 * After each step we print the script and check the block names and loop structure; the final
 * functions run on the CPU executor against the unscheduled function.
 */
import { type PrimFunc, compilePrimFunc, gemmReluAdd, randomArgs, verifyWellFormed } from "@tessera/ir";
import { beforeAll, describe, expect, it } from "vitest";
import { type LoopRV, Schedule } from "../../src/index.js";

const N = 256;
/** Diagnostics (each step's script, the error reached) print only with TESSERA_TEST_VERBOSE=1. */
const VERBOSE = process.env.TESSERA_TEST_VERBOSE === "1";

function show(sch: Schedule, step: string): string {
  const text = sch.script();
  if (VERBOSE) console.log(`--- after ${step} ---\n${text}`);
  return text;
}

function blockNamesOf(text: string): string[] {
  return [...text.matchAll(/T\.block\("([^"]+)"\)/g)].map((m) => m[1]!).filter((n) => n !== "root");
}

function loopNames(sch: Schedule, block: string): string[] {
  return sch.getLoops(sch.getBlock(block)).map((l) => sch.get(l).loopVar.name);
}

let base: PrimFunc;
let reference: Float32Array[];
let inputs: Float32Array[];

beforeAll(() => {
  base = gemmReluAdd(N).func;
  inputs = randomArgs(base, 2025) as Float32Array[];
  reference = inputs.map((a) => a.slice());
  compilePrimFunc(base).run(reference);
});

function expectSameResult(func: PrimFunc): void {
  verifyWellFormed(func);
  const out = inputs.map((a) => a.slice());
  compilePrimFunc(func).run(out);
  const d = out[3]!;
  const ref = reference[3]!;
  let worst = 0;
  let exact = true;
  for (let i = 0; i < ref.length; i++) {
    if (!Object.is(d[i], ref[i])) exact = false;
    const rel = Math.abs(d[i]! - ref[i]!) / Math.max(1, Math.abs(ref[i]!));
    worst = Math.max(worst, rel);
  }
  // Each output keeps k innermost and sequential per element, so the float32 sums are expected to
  // be bit-exact; the tolerance is the contract, exactness is reported.
  if (VERBOSE) console.log(`max relative error ${worst.toExponential(2)} (bit-exact: ${exact})`);
  expect(worst).toBeLessThanOrEqual(1e-4);
}

describe("assignment 2 at 256³: naive schedule", () => {
  it("splits by 32, binds blocks/threads, fuses relu and add, keeps matmul in registers", () => {
    const sch = new Schedule(base);
    const gemm = sch.getBlock("gemm");
    const relu = sch.getBlock("relu");
    const add = sch.getBlock("add");
    const [i, j] = sch.getLoops(gemm);
    const [i0, i1] = sch.split(i!, [null, 32]);
    const [j0, j1] = sch.split(j!, [null, 32]);
    sch.reorder(i0!, j0!, i1!, j1!);
    sch.bind(i0!, "blockIdx.x");
    sch.bind(j0!, "blockIdx.y");
    sch.bind(i1!, "threadIdx.x");
    sch.bind(j1!, "threadIdx.y");
    show(sch, "tiling + bind");
    expect(loopNames(sch, "gemm")).toEqual(["i_0", "j_0", "i_1", "j_1", "k"]);
    sch.reverseComputeAt(relu, j1!);
    sch.reverseComputeInline(add);
    sch.setScope(gemm, 0, "local");
    const text = show(sch, "naive schedule");
    expect(blockNamesOf(text)).toEqual(["gemm", "relu"]);
    expect(text).toContain('T.thread_binding(8, thread="blockIdx.x")');
    expect(text).toContain('T.thread_binding(32, thread="threadIdx.y")');
    expect(text).toMatch(/matmul = T\.alloc_buffer\(\(256, 256\), scope="local"\)/);
    expect(loopNames(sch, "relu")).toEqual(["i_0", "j_0", "i_1", "j_1"]);
    expect(text).toContain("D[");
    expectSameResult(sch.func);
  });
});

describe("assignment 2 at 256³: manual schedule", () => {
  // Tile sizes of the reference solution: 64x64 per thread block, 4x4 per thread, k chunks of 8.
  const TILE_X = 64,
    TILE_Y = 64,
    TILE_K = 8;
  const THREAD_X = 4,
    THREAD_Y = 4,
    THREAD_K = 1;
  const NUM_THREADS = (TILE_X / THREAD_X) * (TILE_Y / THREAD_Y);
  const sch = new Schedule(gemmReluAdd(N).func);
  let ko: LoopRV, ki: LoopRV, tx: LoopRV, ty: LoopRV;
  let aShared: ReturnType<Schedule["getBlock"]>, bShared: ReturnType<Schedule["getBlock"]>;

  it("task 1: shared memory tiling", () => {
    const gemm = sch.getBlock("gemm");
    const [i, j, k] = sch.getLoops(gemm);
    const [bx, ii] = sch.split(i!, [null, TILE_X]);
    const [by, jj] = sch.split(j!, [null, TILE_Y]);
    [ko, ki] = sch.split(k!, [null, TILE_K]) as [LoopRV, LoopRV];
    sch.reorder(bx!, by!, ko, ii!, jj!, ki);
    sch.bind(bx!, "blockIdx.x");
    sch.bind(by!, "blockIdx.y");
    aShared = sch.cacheRead(gemm, 0, "shared");
    bShared = sch.cacheRead(gemm, 1, "shared");
    sch.computeAt(aShared, ko);
    sch.computeAt(bShared, ko);
    const text = show(sch, "task 1");
    expect(blockNamesOf(text)).toEqual(["A_shared", "B_shared", "gemm", "relu", "add"]);
    expect(loopNames(sch, "A_shared")).toEqual(["i_0", "j_0", "k_0", "ax0", "ax1"]);
    expect(sch.get(sch.getLoops(aShared).at(-2)!).extent).toMatchObject({ value: TILE_X });
    expect(sch.get(sch.getLoops(aShared).at(-1)!).extent).toMatchObject({ value: TILE_K });
  });

  it("task 2: register tiling", () => {
    const gemm = sch.getBlock("gemm");
    const [, , , ii, jj, kk] = sch.getLoops(gemm);
    const [txl, iii] = sch.split(ii!, [null, THREAD_X]);
    const [tyl, jjj] = sch.split(jj!, [null, THREAD_Y]);
    const [kko, kki] = sch.split(kk!, [null, THREAD_K]);
    tx = txl!;
    ty = tyl!;
    sch.reorder(tx, ty, kko!, kki!, iii!, jjj!);
    sch.bind(tx, "threadIdx.x");
    sch.bind(ty, "threadIdx.y");
    const aLocal = sch.cacheRead(gemm, 0, "local");
    const bLocal = sch.cacheRead(gemm, 1, "local");
    sch.computeAt(aLocal, kki!);
    sch.computeAt(bLocal, kki!);
    const text = show(sch, "task 2");
    expect(blockNamesOf(text)).toEqual(["A_shared", "B_shared", "A_shared_local", "B_shared_local", "gemm", "relu", "add"]);
    expect(text).toContain('T.thread_binding(16, thread="threadIdx.x")');
    expect(text).toContain('T.thread_binding(16, thread="threadIdx.y")');
  });

  it("task 3: cooperative fetching", () => {
    for (const cache of [aShared, bShared]) {
      const loops = sch.getLoops(cache);
      const fused = sch.fuse(...loops.slice(-2));
      const [, t] = sch.split(fused, [null, NUM_THREADS]);
      const [tX, tY] = sch.split(t!, [TILE_X / THREAD_X, TILE_Y / THREAD_Y]);
      sch.bind(tX!, "threadIdx.x");
      sch.bind(tY!, "threadIdx.y");
    }
    const text = show(sch, "task 3");
    expect(loopNames(sch, "A_shared")).toEqual(["i_0", "j_0", "k_0", "ax0_ax1_fused_0", "ax0_ax1_fused_1_0", "ax0_ax1_fused_1_1"]);
    expect(text).toContain('A_shared = T.alloc_buffer((256, 256), scope="shared")');
  });

  it("task 4: write cache", () => {
    const gemm = sch.getBlock("gemm");
    const wb = sch.cacheWrite(gemm, 0, "local");
    sch.reverseComputeAt(wb, ty);
    const text = show(sch, "task 4");
    expect(blockNamesOf(text)).toContain("matmul_local");
    expect(loopNames(sch, "matmul_local")).toEqual(["i_0", "j_0", "k_0", "i_1_0", "j_1_0", "ax0", "ax1"]);
  });

  it("task 5: epilogue fusion", () => {
    sch.reverseComputeInline(sch.getBlock("add"));
    sch.reverseComputeInline(sch.getBlock("relu"));
    const text = show(sch, "task 5");
    expect(blockNamesOf(text)).toEqual(["A_shared", "B_shared", "A_shared_local", "B_shared_local", "gemm", "matmul_local"]);
    expect(text).not.toMatch(/relu = T\.alloc_buffer/);
    expect(text).toMatch(/D\[v0, v1\] = T\.max\(matmul_local\[v0, v1\], T\.float32\(0(\.0)?\)\) \+ C\[v0, v1\]/);
  });

  it("runs on the CPU executor and matches the unscheduled function", () => {
    expectSameResult(sch.func);
  });
});
