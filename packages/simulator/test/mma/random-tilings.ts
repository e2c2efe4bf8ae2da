/** Test support: random tilings of the mma GEMM schedules (8-wide k tiles allowed up to 4 per stage), and whether one fits. */
import type { MmaGemmParams } from "@tessera/corpus";
import fc from "fast-check";

/** A shared-tile layout: padded rows, plain rows, or XOR-swizzled chunks. */
export const randomSharedLayout: fc.Arbitrary<Pick<MmaGemmParams, "padShared" | "swizzle">> = fc.constantFrom(
  { padShared: true },
  { padShared: false },
  { padShared: false, swizzle: true },
);

export const randomTiling: fc.Arbitrary<MmaGemmParams> = fc
  .record({
    warps: fc.tuple(fc.constantFrom(1, 2), fc.constantFrom(1, 2)),
    tilesPerWarp: fc.tuple(fc.constantFrom(1, 2), fc.constantFrom(1, 2)),
    kTiles: fc.constantFrom(1, 2, 4),
    layout: randomSharedLayout,
    pipelineStages: fc.constantFrom(1, 2, 3, 4),
  })
  .map(({ layout, ...tiling }) => ({ ...tiling, ...layout }));

/** Whether `schedule` accepts the tiling (it throws a RangeError naming why not). */
export function fits(schedule: () => unknown): boolean {
  try {
    schedule();
    return true;
  } catch (err) {
    if (err instanceof RangeError) return false;
    throw err;
  }
}
