import { ops } from "@tessera/ir";
import { Schedule, Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { multiLevelTilingCpu } from "../../src/rules/multi-level-tiling-cpu.js";
import { registerTileLoops, registerTilePlacements, registerTilesFor } from "../../src/rules/tiling-cpu/register-tile.js";
import { defaultCpuPostprocs } from "../../src/space/cpu-defaults.js";
import { replayWithPostprocs } from "../../src/space/replay.js";
import { applyRules, contextOf, execute, matmulFunc, matmulRelu } from "./helpers.js";

const AVX2 = { simdBytes: 32 };

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(Math.abs(actual[i]! - expected[i]!)).toBeLessThanOrEqual(1e-4 + 1e-4 * Math.abs(expected[i]!));
}

/** The extents and kinds of the innermost loops above the block `name` in a function's script. */
function innermostLoops(sch: Schedule, name: string, count: number): { extent: number; kind: string }[] {
  return sch
    .getLoops(sch.getBlock(name))
    .slice(-count)
    .map((l) => {
      const loop = sch.get(l);
      return { extent: loop.extent.kind === "IntImm" ? loop.extent.value : -1, kind: loop.forKind };
    });
}

describe("register tiles of the CPU space", () => {
  it("are two vectors of columns by 8 or 4 rows of the probed SIMD width", () => {
    expect(registerTilesFor(AVX2)).toEqual([
      { rows: 8, columns: 16 },
      { rows: 4, columns: 16 },
    ]);
    expect(registerTilesFor({ simdBytes: 64 })).toEqual([
      { rows: 8, columns: 32 },
      { rows: 4, columns: 32 },
    ]);
    expect(registerTilesFor({ simdBytes: 16 }, 8)).toEqual([
      { rows: 8, columns: 4 },
      { rows: 4, columns: 4 },
    ]);
  });

  it("go on the output's last dimension (columns) and the one before (rows), where the factors divide", () => {
    const mm = new Schedule(matmulFunc(64, 32, 16));
    expect(registerTileLoops(mm.get(mm.getBlock("C")), { rows: 8, columns: 16 })).toEqual({
      factors: new Map([
        [0, 8],
        [1, 16],
      ]),
      column: 1,
    });
    const narrow = new Schedule(matmulFunc(6, 32, 16));
    expect(registerTileLoops(narrow.get(narrow.getBlock("C")), { rows: 8, columns: 16 })).toEqual({ factors: new Map([[1, 16]]), column: 1 });
    const odd = new Schedule(matmulFunc(64, 24, 16));
    expect(registerTileLoops(odd.get(odd.getBlock("C")), { rows: 8, columns: 16 })).toBeUndefined();
    const conv = ops.conv2d({ batch: 1, inChannels: 4, outChannels: 8, height: 16, width: 16, kernel: 3, padding: 1 }).func;
    const convSch = new Schedule(conv);
    const block = convSch.get(convSch.getBlock("Y"));
    // Y[n, c, i, j]: columns j (iterator 3), rows i (iterator 2).
    expect(registerTileLoops(block, { rows: 8, columns: 16 })).toEqual({
      factors: new Map([
        [2, 8],
        [3, 16],
      ]),
      column: 3,
    });
  });

  it("take their rows on every other output iterator the factor divides: a conv2d's output rows, then its output channels", () => {
    const conv = ops.conv2d({ batch: 1, inChannels: 4, outChannels: 8, height: 16, width: 16, kernel: 3, padding: 1 }).func;
    const sch = new Schedule(conv);
    const block = sch.get(sch.getBlock("Y"));
    const rowsOn = (rows: number) => registerTilePlacements(block, { rows, columns: 16 }).map((p) => [...p.factors]);
    // Y[n, c, i, j]: rows on i (iterator 2) or c (iterator 1); n (extent 1) takes no factor.
    expect(rowsOn(8)).toEqual([
      [
        [2, 8],
        [3, 16],
      ],
      [
        [1, 8],
        [3, 16],
      ],
    ]);
    // 16 rows divide i only; 32 neither: the columns alone.
    expect(rowsOn(16)).toEqual([
      [
        [2, 16],
        [3, 16],
      ],
    ]);
    expect(rowsOn(32)).toEqual([[[3, 16]]]);
    const mm = new Schedule(matmulFunc(64, 32, 16));
    expect(registerTilePlacements(mm.get(mm.getBlock("C")), { rows: 8, columns: 16 })).toHaveLength(1);
  });

  it("fix the innermost spatial level of the matmul: rows unrolled, columns last; one design space per tile and write reuse", () => {
    const func = matmulFunc(64, 32, 16);
    const spaces = applyRules(contextOf(func), [multiLevelTilingCpu({ registerTiles: registerTilesFor(AVX2) })]);
    expect(spaces).toHaveLength(6);
    const tiles = new Set<string>();
    for (const sch of spaces) {
      const samples = sch.trace.instructions.filter((i) => i.kind.name === "SamplePerfectTile");
      // i and j: three sampled levels above the fixed one; k: TVM's two.
      expect(samples.map((i) => i.attrs)).toEqual([
        [3, 64],
        [3, 64],
        [2, 64],
      ]);
      const [rows, columns] = innermostLoops(sch, "C", 2);
      expect(columns).toEqual({ extent: 16, kind: "serial" });
      expect(rows!.kind).toBe("unrolled");
      tiles.add(`${rows!.extent}x${columns!.extent}`);
    }
    expect([...tiles].sort()).toEqual(["4x16", "8x16"]);
  });

  it("leave a block the tile does not fit tiled as in TVM (three spaces, four levels sampled per spatial loop)", () => {
    const spaces = applyRules(contextOf(matmulFunc(16, 12, 8)), [multiLevelTilingCpu({ registerTiles: registerTilesFor(AVX2) })]);
    expect(spaces).toHaveLength(3);
    for (const sch of spaces) expect(sch.trace.instructions.filter((i) => i.kind.name === "SamplePerfectTile").map((i) => i.attrs[0])).toEqual([4, 4, 2]);
  });

  it("are asked for lazily, once, and checked", () => {
    let asked = 0;
    const rule = multiLevelTilingCpu({
      registerTiles: () => {
        asked++;
        return registerTilesFor(AVX2);
      },
    });
    expect(asked).toBe(0);
    applyRules(contextOf(matmulFunc(16, 16, 8)), [rule]);
    applyRules(contextOf(matmulFunc(16, 16, 8)), [rule]);
    expect(asked).toBe(1);
    expect(() => multiLevelTilingCpu({ registerTiles: [{ rows: 0, columns: 16 }] })).toThrow(/multiLevelTiling: registerTiles/);
  });

  it("property: samples of the register-tiled spaces, after the CPU postprocessors, compute what the workload computes", () => {
    const workloads = [() => matmulFunc(16, 32, 8), () => matmulRelu(8, 48, 6), () => matmulFunc(8, 16, 5)];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: workloads.length - 1 }), fc.integer({ min: 0, max: 1_000_000 }), (w, seed) => {
        const func = workloads[w]!();
        const ctx = contextOf(func, seed);
        const expected = execute(func, seed).at(-1)!;
        for (const space of applyRules(ctx, [multiLevelTilingCpu({ registerTiles: registerTilesFor(AVX2) })], seed)) {
          const trace = Trace.fromJSON(JSON.stringify(space.trace.toJSON()));
          const sample = replayWithPostprocs(ctx, trace, defaultCpuPostprocs({ payoff: () => seed % 2 === 0 }), { seed, freshDecisions: true });
          if (!sample.ok) throw new Error(sample.detail);
          expectClose(execute(sample.sch.func, seed).at(-1)!, expected);
        }
      }),
      { numRuns: 6 },
    );
  });
});
