/**
 * Store coverage (store-coverage.ts) against a full simulation: for random valid GPU schedules
 * (random-gpu-schedule.ts: split factors that need not divide, so predicated tiles, vthreads,
 * vectorized and unrolled write-backs, several kernels), lowered for the T4, and for the same
 * kernels with a random blockIdx extent cut short (a grid too small), the elements of every
 * parameter that coverage says are written are exactly those whose poison a whole simulation
 * replaced. A valid schedule writes no element from two threads.
 */
import { type DeviceKernel, type LoweredModule, LoweringError, lower } from "@tessera/codegen";
import { type AttrStmt, IRMutator, type Stmt, constantSize, intImm } from "@tessera/ir";
import { ScheduleError } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { moduleStoreCoverage, simulate } from "../src/index.js";
import { type GpuRecipe, applyGpuRecipe, gpuRecipeArb } from "./random-gpu-schedule.js";

const RUNS = Number(process.env.TESSERA_COVERAGE_PROPERTY_RUNS ?? 40);
const SEED = Number(process.env.TESSERA_PROPERTY_SEED ?? 11);
/** A quiet NaN payload no arithmetic produces: an element still holding it was never stored. */
const POISON = 0x7fc0dead;

/** The kernel with grid dimension `dim` launched `extent` blocks wide (body and launch metadata). */
function shrinkGrid(kernel: DeviceKernel, dim: 0 | 1 | 2, extent: number): DeviceKernel {
  const tag = (["blockIdx.x", "blockIdx.y", "blockIdx.z"] as const)[dim];
  class Shrink extends IRMutator {
    override visitStmt(s: Stmt): Stmt {
      const visited = super.visitStmt(s);
      if (visited.kind === "AttrStmt" && visited.key === "thread_extent" && visited.node?.name === tag)
        return { ...visited, value: intImm(extent) } satisfies AttrStmt;
      return visited;
    }
  }
  const grid: [number, number, number] = [kernel.launch.grid[0]!, kernel.launch.grid[1]!, kernel.launch.grid[2]!];
  grid[dim] = extent;
  return { ...kernel, body: new Shrink().visitStmt(kernel.body), launch: { ...kernel.launch, grid } };
}

/** The elements of each parameter a whole simulation writes: 1 where the poison was replaced. */
function simulatedWrites(module: LoweredModule): Uint8Array[] {
  const buffers = module.source.params.map((p) => module.source.bufferMap.get(p)!);
  return buffers.map((_, target) => {
    // One run per parameter: only the target is poisoned, the others hold ordinary values, so no
    // store can copy the poison into it.
    const args = buffers.map((b, k) => {
      const a = new Float32Array(constantSize(b)!);
      if (k === target) new Uint32Array(a.buffer).fill(POISON);
      else a.fill(0.5);
      return a;
    });
    simulate(module, args, { detectRaces: false });
    const bits = new Uint32Array(args[target]!.buffer);
    return Uint8Array.from(bits, (b) => (b === POISON ? 0 : 1));
  });
}

function expectedRejection(err: unknown): boolean {
  return err instanceof ScheduleError || err instanceof LoweringError;
}

interface Case {
  readonly recipe: GpuRecipe;
  /** Cut a grid dimension short: which one (mod the kernel's), and the fraction of its extent kept. */
  readonly shrink: { readonly dim: number; readonly keep: number } | undefined;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  recipe: gpuRecipeArb,
  shrink: fc.option(fc.record({ dim: fc.nat(2), keep: fc.double({ min: 0, max: 0.95, noNaN: true }) }), { nil: undefined }),
});

let checked = 0;
let shrunk = 0;

function checkCase({ recipe, shrink }: Case): void {
  let module: LoweredModule;
  try {
    module = lower(applyGpuRecipe(recipe), "nvidia/tesla-t4");
  } catch (err) {
    if (expectedRejection(err)) return;
    throw err;
  }
  if (shrink !== undefined) {
    const kernels = module.kernels.map((k) => {
      const dims = ([0, 1, 2] as const).filter((d) => k.launch.grid[d]! > 1);
      const dim = dims[shrink.dim % Math.max(1, dims.length)];
      if (dim === undefined) return k;
      return shrinkGrid(k, dim, Math.max(1, Math.floor(k.launch.grid[dim]! * shrink.keep)));
    });
    if (kernels.some((k, i) => k !== module.kernels[i])) shrunk++;
    module = { ...module, kernels };
  }
  const simulated = simulatedWrites(module);
  module.source.params.forEach((p, index) => {
    const result = moduleStoreCoverage(module, index);
    if (!result.supported) throw new Error(`coverage unsupported for ${JSON.stringify(recipe)}: ${result.why}`);
    const covered = result.coverage.written;
    const expected = simulated[index]!;
    const differs = covered.findIndex((w, e) => w !== expected[e]);
    expect(
      differs,
      `${module.source.bufferMap.get(p)!.name}: element ${differs} written by coverage ${covered[differs]}, by simulation ${expected[differs]}`,
    ).toBe(-1);
    if (shrink === undefined) expect(result.coverage.overlapCount).toBe(0);
  });
  checked++;
}

describe("store coverage", () => {
  it("marks exactly the elements a whole simulation writes, for random GPU schedules and grids cut short", () => {
    fc.assert(
      fc.property(caseArb, (c) => checkCase(c)),
      { numRuns: RUNS, seed: SEED },
    );
    expect(checked, "at least half of the schedules lower").toBeGreaterThanOrEqual(RUNS / 2);
    expect(shrunk, "some grids were cut short").toBeGreaterThan(0);
  });
});
