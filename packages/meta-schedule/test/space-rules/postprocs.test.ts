import { parsePrimFunc } from "@tessera/ir";
import { Schedule, Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { disallowDynamicLoop } from "../../src/postproc/disallow-dynamic-loop.js";
import { rewriteUnboundBlock } from "../../src/postproc/rewrite-unbound-block.js";
import { autoBind } from "../../src/rules/auto-bind.js";
import { replayWithPostprocs } from "../../src/space/replay.js";
import { applyRules, contextOf, elementwiseChain, kinds, matmulFunc, planeSum, rowMaxShift, rowSum, simulateAgainstReference, threadTags } from "./helpers.js";

const SYMBOLIC = `
@T.prim_func
def main(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (8, n))
    B = T.match_buffer(b, (8, n))
    for i, k in T.grid(8, n):
        with T.block("B"):
            vi, vk = T.axis.remap("SS", [i, k])
            B[vi, vk] = A[vi, vk] * T.float32(2.0)
`;

describe("disallowDynamicLoop", () => {
  it("rejects a loop with a symbolic extent, naming it", () => {
    const func = parsePrimFunc(SYMBOLIC);
    expect(disallowDynamicLoop().apply(new Schedule(func), contextOf(rowSum(2, 2)))).toEqual({ ok: false, reason: "loop k has the dynamic extent n" });
  });

  it("accepts constant loops and changes nothing", () => {
    const sch = new Schedule(matmulFunc(4, 4, 4));
    const before = sch.script();
    expect(disallowDynamicLoop().apply(sch, contextOf(matmulFunc(4, 4, 4)))).toEqual({ ok: true });
    expect(sch.script()).toBe(before);
    expect(sch.trace.instructions).toHaveLength(0);
  });
});

describe("rewriteUnboundBlock", () => {
  it("binds every unbound block with as many threads as it has iterations, up to the limit", () => {
    const func = elementwiseChain([16, 24]);
    const sch = new Schedule(func);
    expect(rewriteUnboundBlock().apply(sch, contextOf(func))).toEqual({ ok: true });
    const script = sch.script();
    expect(threadTags(script)).toEqual(["blockIdx.x", "threadIdx.x", "blockIdx.x", "threadIdx.x"]);
    expect(script).toMatch(/T\.thread_binding\(384, thread="threadIdx\.x"\)/);
    expect(kinds(sch)).not.toContain("SampleCategorical");
    expect(simulateAgainstReference(sch, func).passed).toBe(true);
  });

  it("splits a loop longer than 256 blocks × max threads into [rest, 256, max threads], rest innermost", () => {
    const func = elementwiseChain([300, 1024]);
    const sch = new Schedule(func);
    expect(rewriteUnboundBlock({ maxThreadsPerBlock: 1024 }).apply(sch, contextOf(func))).toEqual({ ok: true });
    const script = sch.script();
    expect(script).toMatch(
      /for i0_i1_fused_1 in T\.thread_binding\(256, thread="blockIdx\.x"\):\s+for i0_i1_fused_2 in T\.thread_binding\(1024, thread="threadIdx\.x"\):\s+for i0_i1_fused_0 in range\(2\)/,
    );
  });

  it("leaves blocks already bound alone", () => {
    const func = elementwiseChain([16, 24]);
    const [sch] = applyRules(contextOf(func), [autoBind()]);
    const before = sch!.trace.instructions.length;
    expect(rewriteUnboundBlock().apply(sch!, contextOf(func))).toEqual({ ok: true });
    expect(sch!.trace.instructions.length).toBe(before);
  });

  it("rejects a block whose outer loop is a reduction, with the reason", () => {
    const func = rowSum(8, 64);
    const sch = new Schedule(func);
    const [i, k] = sch.getLoops(sch.getBlock("B"));
    sch.reorder(k, i);
    expect(rewriteUnboundBlock().apply(sch, contextOf(func))).toEqual({ ok: false, reason: "block B has no outer data-parallel loop to bind" });
  });

  it("rejects a block bound to blockIdx but not threadIdx (TVM's unsupported case)", () => {
    const func = rowSum(8, 4);
    const sch = new Schedule(func);
    sch.bind(sch.getLoops(sch.getBlock("B"))[0], "blockIdx.x");
    expect(rewriteUnboundBlock().apply(sch, contextOf(func))).toEqual({ ok: false, reason: "block B is under blockIdx but not threadIdx" });
  });

  it("binds the outer spatial loops of a block whose inner loop is already on threads to blockIdx.x", () => {
    const func = elementwiseChain([6, 64]);
    const sch = new Schedule(func);
    for (const name of ["B", "C"]) {
      const [, j] = sch.getLoops(sch.getBlock(name));
      sch.bind(j, "threadIdx.x");
    }
    expect(rewriteUnboundBlock().apply(sch, contextOf(func))).toEqual({ ok: true });
    expect(threadTags(sch.script())).toEqual(["blockIdx.x", "threadIdx.x", "blockIdx.x", "threadIdx.x"]);
    expect(kinds(sch).filter((k) => k === "Split")).toHaveLength(0);
    expect(simulateAgainstReference(sch, func).passed).toBe(true);
  });

  it("property: unscheduled workloads, and AutoBind samples, replay with the postprocessors, lower, and simulate equal to the executor", () => {
    const workloads = [() => rowSum(9, 20), () => elementwiseChain([5, 70]), () => rowMaxShift(3, 33), () => planeSum(4, 3, 5), () => matmulFunc(6, 10, 4)];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: workloads.length - 1 }), fc.boolean(), fc.integer({ min: 0, max: 1_000_000 }), (w, withAutoBind, seed) => {
        const func = workloads[w]!();
        const ctx = contextOf(func, seed);
        const [space] = applyRules(ctx, withAutoBind ? [autoBind()] : [], seed);
        const trace = Trace.fromJSON(JSON.stringify(space!.trace.toJSON()));
        const sample = replayWithPostprocs(ctx, trace, [disallowDynamicLoop(), rewriteUnboundBlock()], { seed, freshDecisions: true });
        if (!sample.ok) throw new Error(sample.detail);
        expect(unboundLeft(sample.sch.script())).toBe(false);
        expect(simulateAgainstReference(sample.sch, func, seed).passed).toBe(true);
      }),
      { numRuns: 15 },
    );
  });
});

/** Whether a block of the script sits outside every thread binding. */
function unboundLeft(script: string): boolean {
  return /^ {4}for [^\n]* in (range|T\.grid)/m.test(script);
}
