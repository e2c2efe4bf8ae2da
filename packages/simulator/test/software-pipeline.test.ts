/**
 * Software-pipelined kernels end to end: lowered (injectSoftwarePipeline, then threadSync with
 * its version-disjointness proof), simulated with GPU semantics (race detector on, outputs
 * poisoned) against the sequential executor on the unscheduled function, and the barriers that
 * remain counted in the IR and the CUDA. A fast-check property pipelines random stage/order
 * annotations of a tiled GEMM and of a 1-D producer/consumer chain: each either lowers and
 * simulates exactly, or is rejected with a LoweringError.
 */
import { type DeviceKernel, type LoweredModule, LoweringError, codegenCuda, lower } from "@tessera/codegen";
import { type PipelineAnnotation, pipelinedGemmSchedule } from "@tessera/corpus";
import { type PrimFunc, type Stmt, forEachStmt, gemmReluAdd, parsePrimFunc } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { compareWithReference, formatComparison, formatSimulationReport } from "../src/index.js";

function barriersIn(root: Stmt): number {
  let n = 0;
  forEachStmt(root, (s) => {
    if (s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === "tvm_storage_sync") n++;
  });
  return n;
}

/** Barriers directly in the body of the loop over `name` (the steady state), and in the whole kernel. */
function barrierCounts(kernel: DeviceKernel, name: string): { perIteration: number; total: number } {
  const loops: Stmt[] = [];
  forEachStmt(kernel.body, (s) => {
    if (s.kind === "For" && s.loopVar.name === name && s.forKind !== "unrolled") loops.push(s);
  });
  expect(loops, `one steady-state loop ${name}`).toHaveLength(1);
  return { perIteration: barriersIn(loops[0]!), total: barriersIn(kernel.body) };
}

function expectSimulatesExactly(module: LoweredModule, original: PrimFunc): void {
  const report = compareWithReference(module, original, { seed: 5, rtol: 1e-5, atol: 1e-5 });
  expect(report.passed, formatSimulationReport(report.simulation) + formatComparison(report)).toBe(true);
  expect(report.simulation.raceCount).toBe(0);
  expect(report.simulation.uninitializedReadCount).toBe(0);
}

function syncthreadsInCuda(module: LoweredModule): number {
  return codegenCuda(module).source.split("__syncthreads();").length - 1;
}

describe("the pipelined GEMM (64×64 tiles, k chunks of 8, fetches bound inside the compute's threads)", () => {
  const gemm = gemmReluAdd(128).func;

  it("double-buffered ([0, 0, 1]): one barrier per k iteration and one before the epilogue", () => {
    const module = lower(pipelinedGemmSchedule(128), "nvidia/h100");
    const kernel = module.kernels[0]!;
    expect(kernel.sharedBytes).toBe(2 * 2 * 512 * 4);
    expect(barrierCounts(kernel, "k_0")).toEqual({ perIteration: 1, total: 2 });
    expect(syncthreadsInCuda(module)).toBe(2);
    expectSimulatesExactly(module, gemm);
  });

  it("unpipelined, the same k loop needs two barriers per iteration (the baseline)", () => {
    const kernel = lower(pipelinedGemmSchedule(128, null), "nvidia/h100").kernels[0]!;
    expect(kernel.sharedBytes).toBe(2 * 512 * 4);
    expect(barrierCounts(kernel, "k_0")).toEqual({ perIteration: 2, total: 2 });
  });

  it("three stages ([0, 0, 2]): three versions, still one barrier per iteration", () => {
    const module = lower(pipelinedGemmSchedule(128, { stages: [0, 0, 2], order: [0, 1, 2] }), "nvidia/h100");
    const kernel = module.kernels[0]!;
    expect(kernel.sharedBytes).toBe(3 * 2 * 512 * 4);
    expect(barrierCounts(kernel, "k_0").perIteration).toBe(1);
    expectSimulatesExactly(module, gemm);
  });

  it("the compute ordered before the fetches ([0, 0, 1], order [1, 2, 0]): one version, two barriers per iteration", () => {
    const module = lower(pipelinedGemmSchedule(128, { stages: [0, 0, 1], order: [1, 2, 0] }), "nvidia/h100");
    const kernel = module.kernels[0]!;
    expect(kernel.sharedBytes).toBe(2 * 512 * 4);
    expect(barrierCounts(kernel, "k_0").perIteration).toBe(2);
    expectSimulatesExactly(module, gemm);
  });

  it("a register stage: the k_1 loop pipelined too, its local tiles double-buffered inside the shared pipeline", () => {
    // The outer loop's body, as TVM counts it once k_1 is pipelined: the two shared fetches, then the
    // inner pipeline's prologue, body and epilogue (one block each, as in TVM).
    const sch = pipelinedGemmSchedule(128, { stages: [0, 0, 1, 1, 1], order: [0, 1, 2, 3, 4] });
    const gemmBlock = sch.getBlock("gemm");
    const k1 = sch.getLoops(gemmBlock).at(-3)!;
    for (const operand of [0, 1]) sch.computeAt(sch.cacheRead(gemmBlock, operand, "local"), k1, true);
    sch.annotate(k1, "software_pipeline_stage", [0, 0, 1]);
    sch.annotate(k1, "software_pipeline_order", [0, 1, 2]);
    const module = lower(sch, "nvidia/h100");
    const kernel = module.kernels[0]!;
    const locals = new Map<string, number>();
    forEachStmt(kernel.body, (s) => {
      if (s.kind === "Allocate" && s.buffer.scope === "local") locals.set(s.buffer.name, s.buffer.shape[0]!.kind === "IntImm" ? s.buffer.shape[0].value : -1);
    });
    expect(Object.fromEntries(locals)).toEqual({ matmul_local: 16, A_shared_local: 8, B_shared_local: 8 });
    expect(barrierCounts(kernel, "k_0").perIteration).toBe(1);
    expectSimulatesExactly(module, gemm);
  });
});

/** C[i] = 2·A[reversed within its chunk of 16] + 1: each thread consumes what another fetched. */
function reversedChunks(n: number): PrimFunc {
  return parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((${n},), "float32"), C: T.Buffer((${n},), "float32")):
    for i in range(${n}):
        with T.block("C"):
            vi = T.axis.spatial(${n}, i)
            C[vi] = A[vi // 16 * 16 + 15 - vi % 16] * T.float32(2) + T.float32(1)
`);
}

/**
 * Two blocks of 16 threads walk `chunks` chunks of 16 in a serial loop whose body is the
 * 1-D chain: a shared fetch bound to the threads, a local copy of the whole chunk, the compute.
 */
function producerConsumerSchedule(chunks: number, pipeline: PipelineAnnotation): Schedule {
  const sch = new Schedule(reversedChunks(2 * 16 * chunks));
  const c = sch.getBlock("C");
  const [i] = sch.getLoops(c);
  const [bx, chunk, tx] = sch.split(i!, [2, chunks, 16]);
  sch.reorder(bx!, tx!, chunk!);
  sch.bind(bx!, "blockIdx.x");
  sch.bind(tx!, "threadIdx.x");
  const shared = sch.cacheRead(c, 0, "shared");
  sch.computeAt(shared, chunk!, true);
  const [, thread] = sch.split(sch.getLoops(shared).at(-1)!, [null, 16]);
  sch.bind(thread!, "threadIdx.x");
  sch.cacheRead(c, 0, "local");
  sch.annotate(chunk!, "software_pipeline_stage", [...pipeline.stages]);
  sch.annotate(chunk!, "software_pipeline_order", [...pipeline.order]);
  return sch;
}

describe("random pipelines simulate exactly or are rejected", () => {
  const outcomes = { simulated: 0, rejected: 0 };
  const rejections = new Map<string, number>();
  afterAll(() => {
    if (process.env.TESSERA_TEST_VERBOSE === "1")
      console.log(`[software-pipeline property] ${JSON.stringify(outcomes)}; rejections: ${JSON.stringify(Object.fromEntries(rejections))}`);
  });

  // Mostly stages that grow along the chain (the legal ones); any permutation as the order.
  const stagesArb = fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 3, maxLength: 3 });
  const annotationArb = fc.record({
    stages: fc.oneof({ arbitrary: stagesArb.map((s) => [...s].sort()), weight: 3 }, { arbitrary: stagesArb, weight: 1 }),
    order: fc.oneof(fc.constant([0, 1, 2]), fc.shuffledSubarray([0, 1, 2], { minLength: 3, maxLength: 3 })),
  });

  function check(build: () => Schedule, original: PrimFunc): void {
    let module: LoweredModule;
    try {
      module = lower(build(), "nvidia/h100");
    } catch (err) {
      if (!(err instanceof LoweringError)) throw err;
      outcomes.rejected++;
      const reason = err.message.replace(/, which.*$/, "");
      rejections.set(reason, (rejections.get(reason) ?? 0) + 1);
      return;
    }
    expectSimulatesExactly(module, original);
    outcomes.simulated++;
  }

  it("a 64³ tiled GEMM with random stages and orders of (A fetch, B fetch, compute)", () => {
    const original = gemmReluAdd(64).func;
    fc.assert(
      fc.property(annotationArb, (a) => check(() => pipelinedGemmSchedule(64, a), original)),
      { numRuns: 24, seed: 13 },
    );
  }, 120_000);

  it("a 1-D producer/consumer chain (shared fetch, local copy, compute) with random stages, orders and 1 to 5 chunks", () => {
    fc.assert(
      fc.property(annotationArb, fc.integer({ min: 1, max: 5 }), (a, chunks) =>
        check(() => producerConsumerSchedule(chunks, a), reversedChunks(2 * 16 * chunks)),
      ),
      { numRuns: 80, seed: 17 },
    );
    // Not vacuous: a good share of the annotations are legal pipelines, and some are not.
    expect(outcomes.simulated).toBeGreaterThan(40);
    expect(outcomes.rejected).toBeGreaterThan(5);
  }, 120_000);
});
