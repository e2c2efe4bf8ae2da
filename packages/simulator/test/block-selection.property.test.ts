/**
 * Property: simulating some thread blocks of a launch gives, for the elements those blocks write,
 * exactly what simulating the whole launch gives; and simulating the remaining blocks afterwards
 * on the same arrays completes the whole launch's output bit for bit. On random valid GPU
 * schedules of the corpus workloads (random-gpu-schedule.ts), lowered for the T4. In modules of
 * several kernels the earlier kernels run whole (a later kernel reads what they write) and the
 * selection applies to the last one.
 *
 * TESSERA_BLOCK_SELECTION_RUNS raises the number of schedules, TESSERA_PROPERTY_SEED picks the seed.
 */
import { type LoweredModule, LoweringError, lower } from "@tessera/codegen";
import { type TypedArray, forEachStmt, randomArgs } from "@tessera/ir";
import { ScheduleError } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BlockSelection } from "../src/block-selection.js";
import { type Dim3, simulate } from "../src/index.js";
import { type GpuRecipe, applyGpuRecipe, gpuRecipeArb } from "./random-gpu-schedule.js";

const RUNS = Number(process.env.TESSERA_BLOCK_SELECTION_RUNS ?? 60);
const SEED = Number(process.env.TESSERA_PROPERTY_SEED ?? 11);

let compared = 0;

function lowered(recipe: GpuRecipe): LoweredModule | undefined {
  try {
    return lower(applyGpuRecipe(recipe), "nvidia/tesla-t4");
  } catch (err) {
    if (err instanceof ScheduleError || err instanceof LoweringError) return undefined;
    throw err;
  }
}

/** The module's arguments with every stored-to parameter poisoned (NaN), so that written elements show. */
function poisonedArgs(module: LoweredModule): TypedArray[] {
  const stored = new Set<unknown>();
  forEachStmt(module.source.body, (s) => {
    if (s.kind === "BufferStore") stored.add(s.buffer.data);
  });
  const args = randomArgs(module.source, 7);
  module.source.params.forEach((p, i) => {
    const buffer = module.source.bufferMap.get(p);
    if (buffer !== undefined && stored.has(buffer.data)) args[i]!.fill(Number.NaN);
  });
  return args;
}

const copy = (args: readonly TypedArray[]): TypedArray[] => args.map((a) => a.slice() as TypedArray);

/** Whole earlier kernels; in the last one, the blocks whose linear index `pick` accepts. */
function selection(module: LoweredModule, pick: (linear: number) => boolean): BlockSelection {
  const last = module.kernels.at(-1)!;
  return (grid, kernel) => {
    const all: Dim3[] = [];
    for (let z = 0; z < grid[2]; z++) for (let y = 0; y < grid[1]; y++) for (let x = 0; x < grid[0]; x++) all.push([x, y, z]);
    return kernel === last ? all.filter((_, linear) => pick(linear)) : all;
  };
}

function checkRecipe(recipe: GpuRecipe, chosen: number): void {
  const module = lowered(recipe);
  if (module === undefined) return;
  const [gx, gy, gz] = module.kernels.at(-1)!.launch.grid;
  const volume = gx! * gy! * gz!;
  if (volume < 2) return;
  // A pseudo-random half of the blocks (never none, never all), from the drawn number.
  const inFirst = (linear: number): boolean => (linear === 0 ? true : linear === volume - 1 ? false : ((linear * 2654435761 + chosen) >>> 7) % 2 === 0);

  const start = poisonedArgs(module);
  const whole = copy(start);
  const wholeReport = simulate(module, whole);
  const part = copy(start);
  const first = simulate(module, part, { blocks: selection(module, inFirst) });
  const context = `recipe ${JSON.stringify(recipe)}, grid ${gx}×${gy}×${gz}`;
  part.forEach((array, a) => {
    for (let i = 0; i < array.length; i++) {
      if (Number.isNaN(array[i]!) && !Number.isNaN(start[a]![i]!)) throw new Error(`${context}: argument ${a}[${i}] became NaN`);
      if (!Number.isNaN(array[i]!) && !Object.is(array[i], whole[a]![i])) {
        throw new Error(`${context}: the selected blocks wrote ${array[i]} to argument ${a}[${i}], the whole launch ${whole[a]![i]}`);
      }
    }
  });
  const rest = simulate(module, part, { blocks: selection(module, (linear) => !inFirst(linear)) });
  part.forEach((array, a) => expect(array, `${context}: argument ${a} after the remaining blocks`).toEqual(whole[a]));
  const lastOf = (r: typeof first) => r.kernels.at(-1)!;
  expect(lastOf(first).blocksSimulated + lastOf(rest).blocksSimulated).toBe(volume);
  expect(lastOf(first).raceCount + lastOf(rest).raceCount).toBe(lastOf(wholeReport).raceCount);
  compared++;
}

describe("simulating selected blocks agrees with the whole launch", () => {
  it(`${RUNS} random GPU schedules (seed ${SEED}): a random half of the blocks, then the other half`, () => {
    fc.assert(
      fc.property(gpuRecipeArb, fc.nat(1 << 20), (recipe, chosen) => checkRecipe(recipe, chosen)),
      { numRuns: RUNS, seed: SEED },
    );
    expect(compared, "schedules that lowered to a grid of several blocks and were compared").toBeGreaterThanOrEqual(RUNS / 3);
  }, 300_000);
});
