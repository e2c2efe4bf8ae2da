import { describe, expect, it } from "vitest";
import { INACTIVE, globalLines, laneThreadIndex, sharedWavefronts } from "../../src/latency-model/warp-cost.js";

const lanes = (f: (lane: number) => number): number[] => Array.from({ length: 32 }, (_, lane) => f(lane));

describe("warp access costs of the latency model", () => {
  it("counts the 128-byte lines of global accesses: coalesced, vectorised, strided, broadcast", () => {
    expect(
      globalLines(
        lanes((l) => 4 * l),
        4,
      ),
    ).toBe(1);
    expect(
      globalLines(
        lanes((l) => 16 * l),
        16,
      ),
    ).toBe(4);
    expect(
      globalLines(
        lanes((l) => 4 * 2048 * l),
        4,
      ),
    ).toBe(32);
    expect(
      globalLines(
        lanes(() => 256),
        4,
      ),
    ).toBe(1);
    // A misaligned coalesced access straddles two lines.
    expect(
      globalLines(
        lanes((l) => 4 + 4 * l),
        4,
      ),
    ).toBe(2);
    expect(
      globalLines(
        lanes((l) => (l < 16 ? 4 * l : INACTIVE)),
        4,
      ),
    ).toBe(1);
  });

  it("counts shared-memory wavefronts with bank conflicts", () => {
    expect(
      sharedWavefronts(
        lanes((l) => 4 * l),
        4,
        "load",
      ),
    ).toEqual({ wavefronts: 1, ideal: 1 });
    // 16 lanes 256 words apart: all in bank 0, a 16-way conflict (the manual gemm's A tile).
    expect(
      sharedWavefronts(
        lanes((l) => 4 * 256 * (l % 16)),
        4,
        "load",
      ),
    ).toEqual({ wavefronts: 16, ideal: 1 });
    expect(
      sharedWavefronts(
        lanes((l) => 16 * l),
        16,
        "store",
      ),
    ).toEqual({ wavefronts: 4, ideal: 4 });
  });

  it("maps lanes to thread indices with x fastest, and none past the block", () => {
    expect(laneThreadIndex(0, 17, [16, 16, 1])).toEqual([1, 1, 0]);
    expect(laneThreadIndex(1, 0, [32, 2, 2])).toEqual([0, 1, 0]);
    expect(laneThreadIndex(2, 0, [32, 2, 1])).toBeUndefined();
    expect(laneThreadIndex(0, 20, [20, 1, 1])).toBeUndefined();
  });
});
