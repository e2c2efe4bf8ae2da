/**
 * Launch bounds derived from the estimated registers (RewriteLaunchBounds with the knob at -1):
 * the estimate on the scheduled TensorIR counts the local arrays the lowered CUDA declares, and
 * the derived minimum blocks per SM is what those registers let an SM hold.
 */
import { codegenCuda, lower } from "@tessera/codegen";
import { FAST_PARAMS, fastSchedule } from "@tessera/corpus";
import { gemmReluAdd } from "@tessera/ir";
import type { Trace } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { replayWithPostprocs } from "../../src/index.js";
import { categoricalsFeeding } from "../../src/mutator/sampled-annotations.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { BASE_REGISTERS, blocksPerSMForRegisters, localElementsPerThread } from "../../src/postproc/register-estimate.js";
import { LAUNCH_BOUNDS } from "../../src/schedule-utils/annotations.js";
import { H100, spaceOf } from "./helpers.js";

/** Elements of the local arrays a CUDA kernel declares (each name once: a scope's copies are one array). */
function declaredLocalElements(cuda: string): number {
  const sizes = new Map<string, number>();
  for (const m of cuda.matchAll(/^\s*(?:__align__\(\d+\) )?float (\w+?)(?:_\d+)?\[(\d+)\];/gm)) sizes.set(m[1]!, Number(m[2]));
  return [...sizes.values()].reduce((a, b) => a + b, 0);
}

const { ctx, gen, spaces } = spaceOf(gemmReluAdd(2048).func);

/** The corpus's b128x2 tile: 128×128 of 128 threads, 4×2 sub-tiles of 4×4, two blocks per SM. */
const TWO_BLOCKS = { ...FAST_PARAMS, blockRows: 128, blockCols: 128, vthreadRows: 4, vthreadCols: 2, warpCols: 8, minBlocksPerSM: 2, laneInterleave: 2 };

function withDerivedBounds(trace: Trace): Trace {
  const [knob] = categoricalsFeeding(trace, new Set([LAUNCH_BOUNDS]));
  const index = (knob!.attrs[0] as number[]).indexOf(-1);
  expect(index).toBeGreaterThanOrEqual(0);
  return trace.withDecision(knob!, index, { removePostproc: true });
}

describe("the register estimate of a scheduled kernel", () => {
  it("counts the local arrays of the generated CUDA (fast schedule variants)", () => {
    const variants = [
      FAST_PARAMS,
      { ...FAST_PARAMS, blockRows: 128, vthreadRows: 2 },
      { ...FAST_PARAMS, pipeline: null },
      { ...FAST_PARAMS, vthreadRows: 2, vthreadCols: 4 },
      // B fetched by consecutive threads: two float4 per thread strided through the 8×128 chunk.
      { ...TWO_BLOCKS, bFetchOrder: "thread-inner" as const },
      { ...FAST_PARAMS, tileK: 16, aPad: 0, bFetchOrder: "thread-inner" as const },
    ];
    for (const p of variants) {
      const sch = fastSchedule(2048, p);
      const cuda = codegenCuda(lower(sch.func, H100)).source;
      expect(localElementsPerThread(sch.func)).toBe(declaredLocalElements(cuda));
    }
  });

  it("counts a register stage fetched threads inner as the thread's elements, not its hull (regression: 640 floats for 8)", () => {
    const outer = fastSchedule(2048, TWO_BLOCKS);
    const inner = fastSchedule(2048, { ...TWO_BLOCKS, bFetchOrder: "thread-inner" });
    expect(localElementsPerThread(inner.func)).toBe(localElementsPerThread(outer.func));
    expect(codegenCuda(lower(inner.func, H100)).source).toMatch(/float B_local\[8\];/);
  });
});

describe("RewriteLaunchBounds with derived minimum blocks", () => {
  it("bounds each valid sample with the blocks per SM its estimated registers allow", () => {
    let checked = 0;
    for (let seed = 1; checked < 6 && seed <= 40; seed++) {
      const sample = replayWithPostprocs(ctx, spaces[0]!.trace, [], { seed, freshDecisions: true });
      if (!sample.ok) continue;
      const out = replayWithPostprocs(ctx, withDerivedBounds(sample.sch.trace), gen.postprocs, { seed });
      if (!out.ok) continue;
      const module = loweredModuleFor(out.sch.func)!;
      const cuda = codegenCuda(module).source;
      const threads = module.kernels[0]!.launch.block.reduce((a, b) => a * b, 1);
      const bounds = /__launch_bounds__\((\d+), (\d+)\)/.exec(cuda);
      expect(bounds, "a derived bound is always emitted").not.toBeNull();
      expect(Number(bounds![1])).toBe(threads);
      const registers = BASE_REGISTERS + declaredLocalElements(cuda);
      const blocks = Number(bounds![2]);
      expect(blocks).toBe(blocksPerSMForRegisters(registers, threads, 65536, 2048));
      // The bound leaves each thread the registers it needs (at most 255 a thread), unless one block is all an SM holds.
      if (blocks > 1) expect(Math.floor(65536 / (blocks * threads))).toBeGreaterThanOrEqual(Math.min(255, registers));
      checked++;
    }
    expect(checked).toBe(6);
  });

  it("gives the fast schedule's point __launch_bounds__(256, 1) and a 64-accumulator 128×128 tiling (256, 2)", () => {
    const fast = fastSchedule(2048);
    const small = fastSchedule(2048, { ...FAST_PARAMS, blockRows: 128, vthreadRows: 2 });
    const regs = (s: typeof fast) => BASE_REGISTERS + localElementsPerThread(s.func);
    // 164 and 88 local elements: 180 registers leave room for one block of 256 threads, 104 for two.
    expect(blocksPerSMForRegisters(regs(fast), 256, 65536, 2048)).toBe(1);
    expect(blocksPerSMForRegisters(regs(small), 256, 65536, 2048)).toBe(2);
  });

  it("keeps a positive knob as the asked-for minimum, lowered to what the threads per SM allow", () => {
    expect(blocksPerSMForRegisters(16, 1024, 65536, 2048)).toBe(2);
    expect(blocksPerSMForRegisters(300, 64, 65536, 2048)).toBe(4); // 255 registers at most, 256 allocated
  });
});
