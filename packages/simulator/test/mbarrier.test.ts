/**
 * mbarriers and bulk copies in the simulator (mbarrier-runtime.ts): the warp-specialised pipeline
 * (corpus: loweredBulkCopyScript, a producer thread and consumer warps on full / empty barriers)
 * matches the sequential executor exactly with its waits, and each planted mistake — a missing or
 * wrong-parity wait, a producer that does not wait for the stage to be free, a consumer that does
 * not release it — is caught without a GPU: as a read of a copy in flight, a refill of a stage in
 * flight, or a deadlock naming the threads and the barrier they wait for.
 */
import { type BulkCopyPipelineOptions, bulkCopyReferenceScript, loweredBulkCopyScript } from "@tessera/corpus";
import { cudaTarget, moduleFromKernelFunc } from "@tessera/codegen";
import { parsePrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { expectExactAgreement } from "./exact-agreement.js";
import { SimulationError, compareWithReference } from "../src/index.js";
import type { ComparisonReport } from "../src/compare.js";

const H100 = cudaTarget("nvidia/h100");

function compare(opts: BulkCopyPipelineOptions, edit: (script: string) => string = (s) => s, seed = 1): ComparisonReport {
  const module = moduleFromKernelFunc(parsePrimFunc(edit(loweredBulkCopyScript(opts))), { target: H100 });
  return compareWithReference(module, parsePrimFunc(bulkCopyReferenceScript(opts)), { seed });
}

describe("a producer thread and consumer warps on mbarriers", () => {
  for (const opts of [{}, { stages: 3, tiles: 7 }, { stages: 1, tiles: 3, consumerWarps: 1, lanes: 4 }, { stages: 4, tiles: 4 }] as BulkCopyPipelineOptions[]) {
    it(`with its waits, matches the executor bit for bit, without races (${JSON.stringify(opts)})`, () => {
      expectExactAgreement(compare(opts));
    });
  }

  it("a consumer without its full-barrier wait reads a stage while the copy is in flight", () => {
    expect(() => compare({ fullWait: "missing" })).toThrow(SimulationError);
    expect(() => compare({ fullWait: "missing" })).toThrow(/thread 32 reads A_shared\[126\] while a copy completing on bars\[0\] \(phase 0\) is writing it/);
  });

  it("a consumer waiting for the wrong parity passes at once and reads the stage in flight", () => {
    expect(() => compare({ fullWait: "wrong-parity" })).toThrow(/reads A_shared\[\d+\] while a copy completing on bars\[0\]/);
  });

  it("a producer that does not wait for the empty barrier laps the consumers: their wait passes a phase too late", () => {
    expect(() => compare({ emptyWait: "missing" })).toThrow(
      /thread 32's wait on bars\[0\] for parity 0 passed with 3 phases completed, of which it had seen 0: the barrier ran more than one phase ahead/,
    );
  });

  it("a copy that completes on another stage's barrier is still in flight when the consumers read its stage", () => {
    const wrongBarrier = (s: string): string => s.replace(/(T\.ptx\.cp_async_bulk\(.*)bars, k % 2, 1, 3\)\)$/m, "$1bars, (k + 1) % 2, 1, 3))");
    expect(() => compare({}, wrongBarrier)).toThrow(/reads A_shared\[\d+\] while a copy completing on bars\[1\] \(phase 0\) is writing it/);
  });

  it("consumers that never release a stage leave the producer waiting: a deadlock naming the barrier", () => {
    expect(() => compare({ release: false })).toThrow(
      /deadlock: 65 threads wait at mbarriers.*thread \(0, 0, 0\) waits for bars\[2\] for parity 0; thread \(32, 0, 0\) waits for bars\[0\] for parity 1/,
    );
  });

  it("a thread that reads a landed stage without its own wait is caught even when another warp waited", () => {
    // Only the first consumer warp waits; the second reads what the first warp's wait landed.
    const r = (): ComparisonReport =>
      compare({}, (s) =>
        s.replace(
          /( +)(T\.ptx\.mbarrier_wait_parity\(T\.tvm_access_ptr\(T\.type_annotation\("uint64"\), bars, k % 2, 1, 3\), k \/\/ 2 % 2\))/,
          "$1if threadIdx_x < 64:\n$1    $2",
        ),
      );
    expect(r).toThrow(/thread 64 reads A_shared\[\d+\], which a bulk copy landed when phase 0 of bars\[0\] completed, without having waited for that phase/);
  });

  it("refuses an mbarrier op on an mbarrier never initialised, and a bulk copy of a partial granule", () => {
    expect(() =>
      compare({}, (s) => s.replace(/T\.ptx\.mbarrier_init\(T\.tvm_access_ptr\(T\.type_annotation\("uint64"\), bars, i, 1, 3\), 1\)/, "T.evaluate(0)")),
    ).toThrow(
      /mbarrier_wait_parity on bars\[0\], which no mbarrier_init of this block initialised|mbarrier_arrive_expect_tx on bars\[0\], which no mbarrier_init/,
    );
    expect(() => compare({}, (s) => s.replace(", 512, T.tvm_access_ptr", ", 504, T.tvm_access_ptr"))).toThrow(
      /a bulk copy moves a positive multiple of 16 bytes/,
    );
  });
});

describe("a producer warp of cp.async copies arriving with cp.async.mbarrier.arrive.noinc", () => {
  for (const opts of [{ producer: "cp.async" }, { producer: "cp.async", stages: 3, tiles: 7, consumerWarps: 1, lanes: 4 }] as BulkCopyPipelineOptions[]) {
    it(`with its waits, matches the executor bit for bit, without races (${JSON.stringify(opts)})`, () => {
      const r = compare(opts);
      expect(r.maxAbsError).toBe(0);
      expect(r.simulation.raceCount).toBe(0);
      expect(r.simulation.uninitializedReadCount).toBe(0);
      expect(r.passed).toBe(true);
    });
  }

  it("the copies land with the phase: a consumer without its wait reads a copy in flight", () => {
    expect(() => compare({ producer: "cp.async", fullWait: "missing" })).toThrow(
      /thread 32 reads A_shared\[126\] while a copy completing on bars\[0\] \(phase 0\) is writing it/,
    );
  });

  it("a producer that does not wait for the empty barrier refills a stage whose copies are still in flight", () => {
    expect(() => compare({ producer: "cp.async", emptyWait: "missing" })).toThrow(/a cp\.async to A_shared\[0\] overlaps a copy still in flight on bars\[0\]/);
  });

  it("a producer lane that does not arrive leaves the consumers waiting: a deadlock", () => {
    const silentLane = (s: string): string => s.replace(/( +)(T\.ptx\.cp_async_mbarrier_arrive\(.*\))/, "$1if threadIdx_x != 5:\n$1    $2");
    expect(() => compare({ producer: "cp.async" }, silentLane)).toThrow(
      /deadlock: 96 threads wait at mbarriers.*bars\[0\]: 0 phases completed, 1 of 32 arrivals missing/,
    );
  });
});
