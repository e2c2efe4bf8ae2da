/**
 * Which thread blocks of a launch to simulate. A whole launch runs every block; a selection runs
 * only some (a sample of a large grid, say), each of them completely. A selection is a list of
 * block coordinates, or a function choosing them from a kernel's grid (for modules of several
 * kernels, whose grids differ).
 */
import type { DeviceKernel } from "@tessera/codegen";
import { type Dim3, formatDim3, unflatten, volume } from "./dims.js";
import { SimulationError } from "./errors.js";

export type BlockSelection = readonly Dim3[] | ((grid: Dim3, kernel: DeviceKernel) => readonly Dim3[]);

/** The blocks of `grid` to run, checked: coordinates inside the grid, each block once. Every block when `selection` is undefined. */
export function selectedBlocks(kernel: DeviceKernel, grid: Dim3, selection: BlockSelection | undefined): Dim3[] {
  if (selection === undefined) return Array.from({ length: volume(grid) }, (_, b) => unflatten(b, grid));
  const kernelName = kernel.name;
  const chosen: unknown = typeof selection === "function" ? selection(grid, kernel) : selection;
  if (!Array.isArray(chosen)) {
    throw new SimulationError(`kernel ${kernelName}: the block selection must be a list of [x, y, z] block indices, got ${describe(chosen)}`);
  }
  const seen = new Set<number>();
  return chosen.map((b: unknown, k) => {
    const at = `kernel ${kernelName}: selected block #${k + 1}`;
    if (!Array.isArray(b) || b.length !== 3 || !b.every((c) => Number.isInteger(c))) {
      throw new SimulationError(`${at} must be [x, y, z] with integer coordinates, got ${describe(b)}`);
    }
    const block = b as unknown as Dim3;
    if (block.some((c, d) => c < 0 || c >= grid[d]!)) {
      throw new SimulationError(`${at}, ${formatDim3(block)}, is outside the grid ${formatDim3(grid)}`);
    }
    const linear = block[0] + grid[0] * (block[1] + grid[1] * block[2]);
    if (seen.has(linear)) throw new SimulationError(`${at}, ${formatDim3(block)}, is selected twice (each block runs once)`);
    seen.add(linear);
    return [block[0], block[1], block[2]];
  });
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
