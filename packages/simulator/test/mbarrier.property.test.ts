/**
 * The ordering rule of warp-specialised pipelines, as the simulator's mbarrier runtime enforces it:
 * on random producer / consumer pipelines (corpus: loweredBulkCopyScript; stages, tiles, consumer
 * warps, floats per thread, a bulk-copy producer thread or a cp.async producer warp) with a random
 * set of planted omissions, the simulator accepts the
 * kernel (bit for bit, no race) exactly when the omissions cannot change what a GPU computes:
 * - a consumer's wait for the full barrier, or its parity, is always needed (the copy of its first
 *   tile is in flight when it reads);
 * - the producer's wait for the empty barrier, and the consumers' release of a stage, are needed
 *   exactly when a stage is refilled (more tiles than stages).
 * Every rejection is a SimulationError or a wrong result, never another exception.
 */
import { type BulkCopyPipelineOptions, bulkCopyReferenceScript, loweredBulkCopyScript } from "@tessera/corpus";
import { cudaTarget, moduleFromKernelFunc } from "@tessera/codegen";
import { parsePrimFunc } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SimulationError, compareWithReference } from "../src/index.js";

const H100 = cudaTarget("nvidia/h100");

/** Whether the simulator accepts the pipeline: true (bit for bit, no race), or the rejection. */
function accepted(opts: BulkCopyPipelineOptions): true | string {
  const module = moduleFromKernelFunc(parsePrimFunc(loweredBulkCopyScript(opts)), { target: H100 });
  try {
    const r = compareWithReference(module, parsePrimFunc(bulkCopyReferenceScript(opts)), { seed: 3 });
    return r.passed && r.maxAbsError === 0 ? true : `${r.mismatchCount} wrong elements, ${r.simulation.raceCount} races`;
  } catch (err) {
    if (err instanceof SimulationError) return err.message;
    throw err;
  }
}

const shapes = fc.record({
  stages: fc.integer({ min: 1, max: 4 }),
  tiles: fc.integer({ min: 1, max: 7 }),
  consumerWarps: fc.integer({ min: 1, max: 2 }),
  lanes: fc.constantFrom(1, 2, 4),
  fullWait: fc.constantFrom<"exact" | "missing" | "wrong-parity">("exact", "exact", "missing", "wrong-parity"),
  emptyWait: fc.constantFrom<"exact" | "missing">("exact", "missing"),
  release: fc.boolean(),
  producer: fc.constantFrom<"bulk" | "cp.async">("bulk", "cp.async"),
});
/** A cp.async producer warp copies whole 16-byte pieces per lane: 4 floats per consumer thread. */
const pipelines = shapes.map((o) => (o.producer === "cp.async" ? { ...o, lanes: 4 } : o));

describe("warp-specialised pipelines: the simulator accepts exactly the orders a GPU cannot get wrong", () => {
  it("accepted ⇔ every needed wait and release is there", () => {
    fc.assert(
      fc.property(pipelines, (opts) => {
        const refills = opts.tiles > opts.stages;
        const safe = opts.fullWait === "exact" && (!refills || (opts.emptyWait === "exact" && opts.release));
        const verdict = accepted(opts);
        expect(verdict === true, `${JSON.stringify(opts)}: ${verdict}`).toBe(safe);
      }),
      { numRuns: 40, seed: 14 },
    );
  });
});
