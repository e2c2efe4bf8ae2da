/**
 * VerifyGPUCode remembers each program's verdict (postproc/verify-gpu-code.ts): a program replayed
 * again, from its trace in another schedule, gets the verdict lowering gives it, from the module
 * already lowered; a target with other limits gets its own verdict.
 */
import { type CudaTarget, codegenCuda, lower } from "@tessera/codegen";
import { structuralHash } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateLatency } from "../../src/latency-model/latency-model.js";
import { clearVerdictMemo, loweredModuleFor, verdictMemoCounts } from "../../src/postproc/verify-gpu-code.js";
import { replayWithPostprocs } from "../../src/space/replay.js";
import { programHashesOf } from "../../src/support/program-hashes.js";
import { tuneContext } from "../../src/tune-context.js";
import { H100, replayFixture } from "./search-fixtures.js";

describe("VerifyGPUCode's verdict per program", () => {
  it("keys on the program's hash with names, which the one walk of programHashesOf gives with the hash the search identifies it by", () => {
    const { ctx, space, design } = replayFixture(5);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const out = replayWithPostprocs(ctx, design, space.postprocs, { freshDecisions: true, seed });
        const func = out.ok ? out.sch.func : undefined;
        if (func === undefined) return;
        const hashes = programHashesOf(func);
        expect(hashes).toEqual({ withoutNames: structuralHash(func), withNames: structuralHash(func, { compareNames: true }) });
        expect(programHashesOf(func)).toBe(hashes);
      }),
      { numRuns: 6, seed: 34 },
    );
  });

  it("gives a program replayed again the first replay's module: the CUDA, estimate and verdict of lowering it afresh", () => {
    const { ctx, space, design } = replayFixture(5);
    let accepted = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        clearVerdictMemo();
        const first = replayWithPostprocs(ctx, design, space.postprocs, { freshDecisions: true, seed });
        if (!first.ok) return;
        // The sampled trace replayed with its decisions: another schedule, another function object, the same program.
        const again = replayWithPostprocs(ctx, first.sch.trace, space.postprocs, { seed });
        expect(again.ok).toBe(true);
        if (!again.ok) return;
        expect(again.sch.func).not.toBe(first.sch.func);
        const remembered = loweredModuleFor(again.sch.func);
        expect(remembered).toBeDefined();
        expect(remembered).toBe(loweredModuleFor(first.sch.func));
        const afresh = lower(again.sch.func, H100);
        expect(codegenCuda(remembered!).source).toBe(codegenCuda(afresh).source);
        expect(estimateLatency(remembered!, H100)).toEqual(estimateLatency(afresh, H100));
        accepted++;
      }),
      { numRuns: 8, seed: 33 },
    );
    expect(accepted).toBeGreaterThan(0);
  });

  it("does not give a program the verdict of another target: the same program is refused where shared memory is smaller", () => {
    const { ctx, space, design } = replayFixture(5);
    clearVerdictMemo();
    let program;
    for (let seed = 1; program === undefined; seed++) {
      const out = replayWithPostprocs(ctx, design, space.postprocs, { freshDecisions: true, seed });
      const module = out.ok ? loweredModuleFor(out.sch.func) : undefined;
      if (out.ok && module !== undefined && /__shared__/.test(codegenCuda(module).source)) program = out.sch.trace;
      if (seed > 200) throw new Error("no sample of the space stages through shared memory");
    }
    // H100's verdict (accepted) is remembered now; a target with 16 bytes of shared memory per block must refuse it.
    const tiny: CudaTarget = { ...H100, name: "nvidia/h100-tiny-shared", maxSharedMemoryPerBlock: 16, maxSharedMemoryPerBlockOptin: 16 };
    const tinyCtx = tuneContext(ctx.workload, tiny, { seed: 1 });
    const before = { ...verdictMemoCounts };
    const onTiny = replayWithPostprocs(tinyCtx, program, space.postprocs, { seed: 1 });
    expect(onTiny.ok).toBe(false);
    if (!onTiny.ok) expect(onTiny.reason).toMatch(/verifyGpuCode: exceeds the target's shared memory per block/);
    // Lowered (not remembered), and counted as a lowering that ended in a rejection.
    expect(verdictMemoCounts.lowered - before.lowered).toBe(1);
    expect(verdictMemoCounts.loweredRejected - before.loweredRejected).toBe(1);
    // …and the refusal is remembered for that target only: H100 still accepts the program.
    expect(replayWithPostprocs(ctx, program, space.postprocs, { seed: 1 }).ok).toBe(true);
    expect(replayWithPostprocs(tinyCtx, program, space.postprocs, { seed: 1 }).ok).toBe(false);
    expect(verdictMemoCounts.loweredRejected - before.loweredRejected).toBe(1);
    expect(verdictMemoCounts.remembered - before.remembered).toBe(2);
  });
});
