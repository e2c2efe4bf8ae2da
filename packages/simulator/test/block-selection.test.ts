/**
 * Simulating selected thread blocks of a launch (`SimulationOptions.blocks`): only those blocks
 * write, `afterBlock` sees each one's writes, each runs with the checks of a whole launch (races, out-of-bounds, uninitialised shared
 * reads), and a selection that is not a set of blocks of the grid is refused by name.
 */
import { randomArgs } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { OutOfBoundsError, SimulationError, formatSimulationReport, simulate } from "../src/index.js";
import { moduleFromLoweredScript, windowSumKernel } from "./helpers.js";

/** Window sum inputs with B poisoned, so the elements a run writes are the non-NaN ones. */
function windowSumArgs(): Float32Array[] {
  const module = moduleFromLoweredScript(windowSumKernel());
  const [A, B] = randomArgs(module.source, 5) as Float32Array[];
  return [A!, B!.fill(Number.NaN)];
}

function written(out: Float32Array): number[] {
  return [...out.keys()].filter((i) => !Number.isNaN(out[i]!));
}

describe("simulating selected blocks", () => {
  it("runs only the selected blocks: exactly their 64-element tiles of B are written, with the whole launch's values", () => {
    const module = moduleFromLoweredScript(windowSumKernel());
    const whole = windowSumArgs();
    simulate(module, whole);
    const some = windowSumArgs();
    const report = simulate(module, some, {
      blocks: [
        [3, 0, 0],
        [1, 0, 0],
      ],
    });
    const expected = [...Array.from({ length: 64 }, (_, t) => 64 + t), ...Array.from({ length: 64 }, (_, t) => 192 + t)];
    expect(written(some[1]!)).toEqual(expected);
    for (const i of expected) expect(some[1]![i]).toBe(whole[1]![i]);
    expect(report.kernels[0]).toMatchObject({ grid: [4, 1, 1], blocksSimulated: 2, intervalsPerBlock: 2 });
    expect(formatSimulationReport(report)).toContain("grid (4, 1, 1) (2 of its 4 blocks simulated)");
  });

  it("chooses per kernel with a function of the grid", () => {
    const module = moduleFromLoweredScript(windowSumKernel());
    const args = windowSumArgs();
    const grids: string[] = [];
    simulate(module, args, {
      blocks: (grid, kernel) => {
        grids.push(`${kernel.name} ${grid.join("×")}`);
        return [[grid[0] - 1, 0, 0]];
      },
    });
    expect(grids).toEqual([`${module.kernels[0]!.name} 4×1×1`]);
    expect(written(args[1]!)).toEqual(Array.from({ length: 64 }, (_, t) => 192 + t));
  });

  it("calls afterBlock between blocks, in selection order, when what the block wrote is in the arrays", () => {
    const module = moduleFromLoweredScript(windowSumKernel());
    const args = windowSumArgs();
    const seen: string[] = [];
    simulate(module, args, {
      blocks: [
        [2, 0, 0],
        [0, 0, 0],
      ],
      afterBlock: (kernel, block) => {
        const tile = written(args[1]!);
        seen.push(`${kernel.name} ${block.join(",")}: B[${tile[0]}..${tile.at(-1)}] (${tile.length})`);
        args[1]!.fill(Number.NaN);
      },
    });
    const name = module.kernels[0]!.name;
    expect(seen).toEqual([`${name} 2,0,0: B[128..191] (64)`, `${name} 0,0,0: B[0..63] (64)`]);
  });

  it("detects a race within a selected block, and reports it in that block", () => {
    const module = moduleFromLoweredScript(windowSumKernel({ sync: false }));
    const report = simulate(module, windowSumArgs(), { blocks: [[2, 0, 0]] });
    expect(report.raceCount).toBeGreaterThan(0);
    expect(report.races.every((r) => r.block[0] === 2)).toBe(true);
    expect(report.uninitializedReadCount).toBeGreaterThan(0);
  });

  it("reports an out-of-bounds access of a selected block, and none when the faulty block is not selected", () => {
    // Only the last block stores past the end of B.
    const module = moduleFromLoweredScript(windowSumKernel({ outputIndex: "blockIdx_x * 64 + threadIdx_x + blockIdx_x // 3" }));
    expect(() =>
      simulate(module, windowSumArgs(), {
        blocks: [
          [0, 0, 0],
          [2, 0, 0],
        ],
      }),
    ).not.toThrow();
    const err = (() => {
      try {
        simulate(module, windowSumArgs(), { blocks: [[3, 0, 0]] });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(OutOfBoundsError);
    expect((err as OutOfBoundsError).at.block).toEqual([3, 0, 0]);
  });

  it("runs no block for an empty selection", () => {
    const module = moduleFromLoweredScript(windowSumKernel());
    const args = windowSumArgs();
    const report = simulate(module, args, { blocks: [] });
    expect(report.kernels[0]!.blocksSimulated).toBe(0);
    expect(written(args[1]!)).toEqual([]);
  });

  it.each([
    [[[4, 0, 0]], /selected block #1, \(4, 0, 0\), is outside the grid \(4, 1, 1\)/],
    [[[0, 1, 0]], /selected block #1, \(0, 1, 0\), is outside the grid \(4, 1, 1\)/],
    [
      [
        [1, 0, 0],
        [-1, 0, 0],
      ],
      /selected block #2, \(-1, 0, 0\), is outside the grid/,
    ],
    [
      [
        [1, 0, 0],
        [1, 0, 0],
      ],
      /selected block #2, \(1, 0, 0\), is selected twice/,
    ],
    [[[0.5, 0, 0]], /selected block #1 must be \[x, y, z\] with integer coordinates, got \[0.5,0,0\]/],
    [[[1, 0]], /selected block #1 must be \[x, y, z\] with integer coordinates, got \[1,0\]/],
    ["all", /the block selection must be a list of \[x, y, z\] block indices, got "all"/],
  ])("refuses the selection %j, naming what is wrong", (blocks, message) => {
    const module = moduleFromLoweredScript(windowSumKernel());
    const run = () => simulate(module, windowSumArgs(), { blocks: blocks as never });
    expect(run).toThrow(SimulationError);
    expect(run).toThrow(message);
  });
});
