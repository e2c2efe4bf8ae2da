/**
 * A realistic GPU-style schedule of `conv2d` (NCHW, padding as its own stage) from @tessera/ir's
 * operator library: inline the padding, tile and bind the output loops, stage the input in shared
 * memory per input channel, accumulate in registers, decompose the reduction. TVMScript snippets
 * are checked after the key steps, and every step runs on the CPU executor against the
 * unscheduled function. Then error cases on the same operator.
 */
import { type PrimFunc, assertStructuralEqual, conv2d, verifyWellFormed } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import {
  HasInitBlock,
  NotCompactDataFlowError,
  NotCompleteOrReductionBlockError,
  NotSingleReadWriteBuffer,
  OutputBlockError,
  WrongBlockIterTypeError,
} from "../src/error-catalogue.js";
import { Schedule, Trace } from "../src/index.js";
import { expectScheduleError, runBoth } from "./support.js";

const STRIDE1 = { batch: 1, inChannels: 4, outChannels: 8, height: 8, width: 8, kernel: 3, padding: 1 } as const;
/** Same output size (8×8) through stride 2 on a 16×16 input. */
const STRIDE2 = { ...STRIDE1, height: 16, width: 16, stride: 2 } as const;

function expectSameOutputs(before: PrimFunc, after: PrimFunc): void {
  verifyWellFormed(after);
  const [want, got] = runBoth(before, after, 17);
  const y = want.length - 1;
  expect(got[y]!.length).toBe(want[y]!.length);
  // Each output keeps its reduction order (ric, rkh, rkw), so the sums agree to rounding.
  want[y]!.forEach((v, k) => expect(Math.abs(got[y]![k]! - v)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(v))));
}

/** The schedule, checking after each step; returns the schedule and the scripts seen. */
function scheduleConv(base: PrimFunc, check: (step: string, sch: Schedule) => void): Schedule {
  const sch = new Schedule(base);
  sch.computeInline(sch.getBlock("PaddedX"));
  check("inline padding", sch);

  const y = sch.getBlock("Y");
  const [n, c, i, j, ric, rkh, rkw] = sch.getLoops(y);
  const [c0, c1] = sch.split(c, [null, 4]);
  const [i0, i1] = sch.split(i, [null, 4]);
  const [j0, j1] = sch.split(j, [null, 4]);
  sch.reorder(n, c0, i0, j0, c1, i1, j1, ric, rkh, rkw);
  const blockLoop = sch.fuse(n, c0, i0, j0);
  const threadLoop = sch.fuse(c1, i1, j1);
  sch.bind(blockLoop, "blockIdx.x");
  sch.bind(threadLoop, "threadIdx.x");
  check("tile and bind", sch);

  const xShared = sch.cacheRead(y, 0, "shared");
  sch.computeAt(xShared, ric);
  check("X in shared memory", sch);

  const yLocal = sch.cacheWrite(y, 0, "local");
  sch.reverseComputeAt(yLocal, threadLoop);
  check("Y accumulated locally", sch);

  sch.decomposeReduction(y, ric);
  check("decompose reduction", sch);
  return sch;
}

describe("conv2d: a GPU-style schedule", () => {
  it("produces the expected TVMScript after each key step and computes the same outputs", () => {
    const base = conv2d(STRIDE1).func;
    const scripts = new Map<string, string>();
    const sch = scheduleConv(base, (step, s) => {
      scripts.set(step, s.script());
      expectSameOutputs(base, s.func);
    });

    const inlined = scripts.get("inline padding")!;
    expect(inlined).not.toContain('T.block("PaddedX")');
    expect(inlined).not.toContain("PaddedX = T.alloc_buffer");
    expect(inlined).toContain(
      "Y[v_n, v_c, v_i, v_j] = Y[v_n, v_c, v_i, v_j] + T.if_then_else(v_i * 1 + v_rkh < 1 or v_i * 1 + v_rkh >= 9 or v_j * 1 + v_rkw < 1 or v_j * 1 + v_rkw >= 9, T.float32(0.0), X[v_n, v_ric, v_i * 1 + v_rkh - 1, v_j * 1 + v_rkw - 1]) * W[v_c, v_ric, v_rkh, v_rkw]",
    );

    const tiled = scripts.get("tile and bind")!;
    expect(tiled).toContain(`    for n_c_0_i_0_j_0_fused in T.thread_binding(8, thread="blockIdx.x"):
        for c_1_i_1_j_1_fused in T.thread_binding(64, thread="threadIdx.x"):
            for ric, rkh, rkw in T.grid(4, 3, 3):
                with T.block("Y"):
                    v_n = T.axis.spatial(1, 0)
                    v_c = T.axis.spatial(8, n_c_0_i_0_j_0_fused // 4 * 4 + c_1_i_1_j_1_fused // 16)
                    v_i = T.axis.spatial(8, n_c_0_i_0_j_0_fused % 4 // 2 * 4 + c_1_i_1_j_1_fused % 16 // 4)
                    v_j = T.axis.spatial(8, n_c_0_i_0_j_0_fused % 2 * 4 + c_1_i_1_j_1_fused % 4)
                    v_ric, v_rkh, v_rkw = T.axis.remap("RRR", [ric, rkh, rkw])`);

    const shared = scripts.get("X in shared memory")!;
    expect(shared).toContain('X_shared = T.alloc_buffer((1, 4, 8, 8), scope="shared")');
    expect(shared).toContain(`            for ric in range(4):
                for ax0, ax1 in T.grid(6, 6):
                    with T.block("X_shared"):
                        v0 = T.axis.spatial(1, 0)
                        v1 = T.axis.spatial(4, ric)
                        v2 = T.axis.spatial(8, n_c_0_i_0_j_0_fused % 4 // 2 * 4 - 1 + ax0)
                        v3 = T.axis.spatial(8, n_c_0_i_0_j_0_fused % 2 * 4 - 1 + ax1)`);

    const local = scripts.get("Y accumulated locally")!;
    expect(local).toContain('Y_local = T.alloc_buffer((1, 8, 8, 8), scope="local")');
    expect(local).toContain(`            with T.block("Y_local"):
                v0 = T.axis.spatial(1, 0)
                v1 = T.axis.spatial(8, n_c_0_i_0_j_0_fused // 4 * 4 + c_1_i_1_j_1_fused // 16)
                v2 = T.axis.spatial(8, n_c_0_i_0_j_0_fused % 4 // 2 * 4 + c_1_i_1_j_1_fused % 16 // 4)
                v3 = T.axis.spatial(8, n_c_0_i_0_j_0_fused % 2 * 4 + c_1_i_1_j_1_fused % 4)
                T.reads(Y_local[v0, v1, v2, v3])
                T.writes(Y[v0, v1, v2, v3])
                Y[v0, v1, v2, v3] = Y_local[v0, v1, v2, v3]`);

    const decomposed = scripts.get("decompose reduction")!;
    expect(decomposed).toContain(`        for c_1_i_1_j_1_fused in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("Y_init"):`);
    expect(decomposed).toContain("                Y_local[v_n, v_c, v_i, v_j] = T.float32(0.0)");
    expect(decomposed).toContain(`                for rkh, rkw in T.grid(3, 3):
                    with T.block("Y_update"):`);
    expect(decomposed).not.toContain("T.init()");

    // The trace replays to the same function, also through JSON.
    const replayed = new Schedule(base);
    Trace.fromJSON(JSON.stringify(sch.trace)).applyTo(replayed);
    assertStructuralEqual(replayed.func, sch.func);
  });

  it("schedules a strided conv2d the same way and still computes the same outputs", () => {
    const base = conv2d(STRIDE2).func;
    const sch = scheduleConv(base, () => undefined);
    expect(sch.script()).toContain("for ax0, ax1 in T.grid(9, 9):");
    expectSameOutputs(base, sch.func);
  });
});

describe("conv2d: errors", () => {
  it("computeInline of the output block fails (init statement, then OutputBlockError)", () => {
    const sch = new Schedule(conv2d(STRIDE1).func);
    const y = sch.getBlock("Y");
    expectScheduleError(sch, () => sch.computeInline(y), HasInitBlock, 'The block has init statement: "Y"');
    sch.decomposeReduction(y, sch.getLoops(y)[4]);
    const init = sch.getBlock("Y_init");
    expectScheduleError(sch, () => sch.computeInline(init), OutputBlockError, "Cannot operate on an output block: the block Y_init is an output block");
  });

  it("reverseComputeInline of the reduction consumer of the padding fails", () => {
    const sch = new Schedule(conv2d(STRIDE1).func);
    const y = sch.getBlock("Y");
    expectScheduleError(sch, () => sch.reverseComputeInline(y), HasInitBlock, 'The block has init statement: "Y"');
    // Without its init the update still reads PaddedX, W and Y itself: not an injective consumer.
    sch.decomposeReduction(y, sch.getLoops(y)[4]);
    const update = sch.getBlock("Y_update");
    expectScheduleError(
      sch,
      () => sch.reverseComputeInline(update),
      NotSingleReadWriteBuffer,
      'The block is only allowed to read a single buffer region, but it reads 3 region(s): "Y_update"',
    );
  });

  it("rejects parallelising a reduction loop and moving the decomposed update under the padding", () => {
    const sch = new Schedule(conv2d(STRIDE1).func);
    const y = sch.getBlock("Y");
    const [, , , , ric] = sch.getLoops(y);
    expectScheduleError(
      sch,
      () => sch.parallel(ric),
      WrongBlockIterTypeError,
      `The "parallel" cannot be fulfilled with regard to block Y because some block iter`,
    );
    sch.decomposeReduction(y, ric);
    const update = sch.getBlock("Y_update");
    expectScheduleError(sch, () => sch.parallel(ric), NotCompactDataFlowError, "does not have compact dataflow");
    const [padOuter] = sch.getLoops(sch.getBlock("PaddedX"));
    expectScheduleError(
      sch,
      () => sch.reverseComputeAt(update, padOuter),
      NotCompleteOrReductionBlockError,
      "Not a complete or reduction block: the block Y_update is not a complete block",
    );
  });
});
