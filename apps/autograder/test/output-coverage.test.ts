/**
 * The full-size numerics check without a GPU must see a kernel that leaves part of D unwritten
 * or writes an element of D from two threads: the sampled thread blocks each write correct
 * values, so comparing what they wrote passed such kernels before the coverage check. The
 * kernels here are the course's manual schedule, lowered, with one deliberate bug each (the
 * grid cut short, a condition that skips a strip, a thread tile that writes 3 of its 4 columns,
 * blocks that write each other's rows), as a lowering bug or a hand-edited kernel would have it.
 */
import { type DeviceKernel, type LoweredModule, lower } from "@tessera/codegen";
import { manualSchedule } from "@tessera/corpus";
import { type BufferStore, IRMutator, type PrimExpr, type Stmt, binary, bufferLoad, cast, ifThenElseStmt, intImm } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { checkOutputCoverage } from "../src/grade/output-coverage.js";
import { type SampledNumerics, sampledNumerics } from "../src/grade/sampled-numerics.js";
import { SIMULATED_TARGET } from "../src/grade/simulator-numerics.js";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";

const N = 512;
const SETTINGS = { rounds: 1, rtol: 1e-4, atol: 1e-4, inputRange: [-1, 1] as [number, number] };
/** A few thread blocks of the 512³ kernel (about 4e6 statements each). */
const WORK_BUDGET = 2e7;

const module = lower(manualSchedule(N), SIMULATED_TARGET);

/** The module with its one kernel rewritten by `f`. */
function withKernel(f: (k: DeviceKernel) => DeviceKernel): LoweredModule {
  return { ...module, kernels: module.kernels.map(f) };
}

/** Rewrites every statement bottom-up with `f`. */
function rewrite(kernel: DeviceKernel, f: (s: Stmt) => Stmt): DeviceKernel {
  class Rewrite extends IRMutator {
    override visitStmt(s: Stmt): Stmt {
      return f(super.visitStmt(s));
    }
  }
  return { ...kernel, body: new Rewrite().visitStmt(kernel.body) };
}

const isStoreToD = (s: Stmt): s is BufferStore => s.kind === "BufferStore" && s.buffer.name === "D";

/** blockIdx.x (the rows of D) launched `extent` blocks wide. */
function gridX(extent: number): LoweredModule {
  return withKernel((k) => {
    const body = rewrite(k, (s) => (s.kind === "AttrStmt" && s.key === "thread_extent" && s.node?.name === "blockIdx.x" ? { ...s, value: intImm(extent) } : s));
    return { ...body, launch: { ...k.launch, grid: [extent, k.launch.grid[1]!, k.launch.grid[2]!] } };
  });
}

/** D's stores guarded by `condition` of their flat index. */
function guardStores(condition: (index: PrimExpr) => PrimExpr): LoweredModule {
  return withKernel((k) => rewrite(k, (s) => (isStoreToD(s) ? ifThenElseStmt(condition(s.indices[0]!), s) : s)));
}

/** D's store indices rewritten by `f`. */
function storeIndex(f: (index: PrimExpr) => PrimExpr): LoweredModule {
  return withKernel((k) => rewrite(k, (s) => (isStoreToD(s) ? { ...s, indices: [f(s.indices[0]!)] } : s)));
}

function check(m: LoweredModule): SampledNumerics {
  return sampledNumerics({ module: m, binding: assignmentBinding(DEFAULT_ASSIGNMENT), n: N, settings: SETTINGS, seed: 7, workBudget: WORK_BUDGET });
}

function errorOf(r: SampledNumerics): string {
  if (!r.ran) throw new Error(`not sampled: ${r.why}`);
  return r.error ?? "";
}

describe("the full-size check of D's coverage", () => {
  it("passes the manual schedule, saying what it checked", () => {
    const r = check(module);
    expect(r.ran && r.error === undefined && r.rounds.every((round) => round.mismatches === 0)).toBe(true);
    expect(r.ran ? r.sample.coverage : "").toBe(`every one of the ${N * N} elements of D is written, each by one thread (all 64 thread blocks checked)`);
  });

  it("fails a grid too small for D, naming the rows it never writes", () => {
    const error = errorOf(check(gridX(7)));
    expect(error).toBe(
      `your kernel never writes ${64 * N} of the ${N * N} elements of D: D[448..511, *]; 448 of 512 rows and 0 of 512 columns are written completely; ` +
        "the kernel launches 56 thread blocks (a 7×8×1 grid) of 16×16×1 threads: is the grid too small, or does a condition skip them?",
    );
  });

  it("fails a condition that skips the last 8 columns", () => {
    const error = errorOf(check(guardStores((i) => binary("lt", binary("floormod", i, N), N - 8))));
    expect(error).toContain(
      `your kernel never writes ${8 * N} of the ${N * N} elements of D: D[*, 504..511]; 0 of 512 rows and 504 of 512 columns are written completely`,
    );
  });

  it("fails a thread tile that writes only 3 of its 4 columns, naming the first element left out", () => {
    // Every 4th column: D[r, c] with c % 4 == 3 is never written.
    const error = errorOf(check(guardStores((i) => binary("ne", binary("floormod", i, 4), 3))));
    expect(error).toContain(`your kernel never writes ${(N * N) / 4} of the ${N * N} elements of D inside D[*, 3..511] (not all of it), first D[0, 3]`);
  });

  it("fails blocks that write each other's rows: a write-write race between blocks", () => {
    // Rows of block x go to block x % 4's rows: blocks 4..7 overwrite blocks 0..3, rows 256.. stay unwritten.
    const blockRows = 64 * N;
    const error = errorOf(
      check(
        storeIndex((i) => binary("add", binary("floormod", i, blockRows), binary("mul", binary("floormod", binary("floordiv", i, blockRows), 4), blockRows))),
      ),
    );
    expect(error).toContain(`your kernel never writes ${(N * N) / 2} of the ${N * N} elements of D: D[256..511, *]`);
    expect(error).toContain(
      `${(N * N) / 2} elements are written by more than one thread, first D[0, 0] by thread (0, 0, 0) of block (0, 0, 0) and by thread (0, 0, 0) of block (4, 0, 0) (a write-write race`,
    );
  });

  it("names the thread of a store out of D's bounds", () => {
    // The sampled blocks meet it first (a corner block loads A out of bounds); the coverage check alone says it too.
    const coverage = checkOutputCoverage(gridX(9));
    expect(coverage).toMatchObject({
      checked: true,
      problem: expect.stringMatching(/^placing the kernel's stores of D failed: .*thread \(0, 0, 0\) of block \(8, 0, 0\): /),
    });
  });

  it("states why it cannot check a kernel whose store indices depend on loaded values, and still samples it", () => {
    const C = module.kernels[0]!.params.find((p) => p.name === "C");
    if (C?.kind !== "buffer") throw new Error("the kernel has no buffer C");
    const m = storeIndex((i) => binary("add", i, binary("mul", cast("int32", bufferLoad(C.buffer, [intImm(0)])), 0)));
    expect(checkOutputCoverage(m)).toEqual({ checked: false, why: expect.stringMatching(/^where the kernel stores D depends on a value it loads \(C\[0\]\)/) });
    const r = check(m);
    expect(r.ran && r.error === undefined).toBe(true);
    expect(r.ran ? r.sample.coverage : "").toMatch(
      /^whether every element of D is written was not checked \(where the kernel stores D depends on a value it loads/,
    );
  });
});
