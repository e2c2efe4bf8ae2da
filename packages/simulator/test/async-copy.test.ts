/**
 * cp.async in the simulator: a copy lands only when its group is waited for (or the thread ends),
 * so pipelined copy loops match the sequential executor exactly when they wait correctly, and a
 * missing or too lenient wait, or a missing barrier after it, shows up as a wrong result and a
 * race. The kernels are TVM's pipelined structure (corpus: loweredAsyncCopyScript) after
 * injectPTXAsyncCopy.
 */
import { type AsyncCopyLoopOptions, asyncCopyReferenceScript, loweredAsyncCopyScript } from "@tessera/corpus";
import { type LoweredModule, injectPTXAsyncCopyPass, moduleFromKernelFunc, target } from "@tessera/codegen";
import { ErrorSiteTable } from "@tessera/ir/executor-kit";
import { parsePrimFunc, randomArgs } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectExactAgreement } from "./exact-agreement.js";
import { DeferredCopies } from "../src/async-copy-queue.js";
import { OutOfBoundsError, compareWithReference, simulate } from "../src/index.js";
import type { ComparisonReport } from "../src/compare.js";

const A100 = target("nvidia/a100");

function pipelinedModule(opts: AsyncCopyLoopOptions, edit: (script: string) => string = (s) => s): LoweredModule {
  const func = injectPTXAsyncCopyPass.run(parsePrimFunc(edit(loweredAsyncCopyScript(opts))), { target: A100 });
  return moduleFromKernelFunc(func, { target: A100 });
}

function compare(opts: AsyncCopyLoopOptions, seed = 1): ComparisonReport {
  return compareWithReference(pipelinedModule(opts), parsePrimFunc(asyncCopyReferenceScript(opts)), { seed });
}

describe("DeferredCopies: one thread's cp.async groups", () => {
  const issue = (q: DeferredCopies, dst: Float32Array, at: number, value: number): void => q.copy(dst, at, Float32Array.of(value), 0, 1, true, 0, undefined);

  it("lands nothing at issue or commit; wait(n) lands all but the newest n committed groups, oldest first", () => {
    const q = new DeferredCopies(new ErrorSiteTable());
    const dst = new Float32Array(4).fill(-1);
    issue(q, dst, 0, 10);
    q.commit();
    issue(q, dst, 1, 11);
    issue(q, dst, 0, 12); // a later group writes element 0 again
    q.commit();
    issue(q, dst, 2, 13);
    q.commit();
    expect(Array.from(dst)).toEqual([-1, -1, -1, -1]);
    q.wait(2);
    expect(Array.from(dst)).toEqual([10, -1, -1, -1]);
    q.wait(1);
    expect(Array.from(dst)).toEqual([12, 11, -1, -1]);
    q.wait(5);
    expect(Array.from(dst)).toEqual([12, 11, -1, -1]);
    q.wait(0);
    expect(Array.from(dst)).toEqual([12, 11, 13, -1]);
  });

  it("counts an empty group, leaves the open (uncommitted) group to the end of the thread, and zero-fills", () => {
    const q = new DeferredCopies(new ErrorSiteTable());
    const dst = new Float32Array(4).fill(-1);
    issue(q, dst, 0, 10);
    q.commit();
    q.commit(); // empty
    q.wait(1);
    expect(dst[0]).toBe(10);
    q.copy(dst, 2, Float32Array.of(7, 8), 0, 2, false, 0, undefined);
    q.wait(0);
    expect(Array.from(dst)).toEqual([10, -1, -1, -1]);
    q.drain();
    expect(Array.from(dst)).toEqual([10, -1, 0, 0]);
  });

  it("reads the source when the copy is issued and reports each landed element to the recorder", () => {
    const q = new DeferredCopies(new ErrorSiteTable());
    const src = Float32Array.of(1, 2, 3, 4);
    const dst = new Float32Array(4);
    const landed: number[] = [];
    q.copy(dst, 0, src, 0, 4, true, 0, (i) => {
      landed.push(i);
      return i;
    });
    src.fill(0);
    q.commit();
    expect(landed).toEqual([]);
    q.wait(0);
    expect(landed).toEqual([0, 1, 2, 3]);
    expect(Array.from(dst)).toEqual([1, 2, 3, 4]);
  });

  it("refuses a misaligned copy like the GPU would", () => {
    const q = new DeferredCopies(new ErrorSiteTable());
    expect(() => q.copy(new Float32Array(8), 2, new Float32Array(8), 0, 4, true, 0, undefined)).toThrow(/misaligned cp.async of 4 elements/);
  });

  it("agrees with a model of the group queue after every operation (property)", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("copy" as const), at: fc.integer({ min: 0, max: 7 }), value: fc.integer({ min: 1, max: 99 }) }),
      fc.record({ kind: fc.constant("commit" as const) }),
      fc.record({ kind: fc.constant("wait" as const), n: fc.integer({ min: 0, max: 3 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const q = new DeferredCopies(new ErrorSiteTable());
        const dst = new Float32Array(8).fill(-1);
        // The model: committed groups (oldest first), the open group, and what has landed.
        const model = new Float32Array(8).fill(-1);
        const groups: { at: number; value: number }[][] = [];
        let open: { at: number; value: number }[] = [];
        const land = (g: readonly { at: number; value: number }[]): void => g.forEach((c) => (model[c.at] = c.value));
        for (const o of ops) {
          if (o.kind === "copy") {
            issue(q, dst, o.at, o.value);
            open.push(o);
          } else if (o.kind === "commit") {
            q.commit();
            groups.push(open);
            open = [];
          } else {
            q.wait(o.n);
            while (groups.length > o.n) land(groups.shift()!);
          }
          expect(Array.from(dst)).toEqual(Array.from(model));
        }
        q.drain();
        groups.forEach(land);
        land(open);
        expect(Array.from(dst)).toEqual(Array.from(model));
      }),
      { seed: 11, numRuns: 200 },
    );
  });
});

describe("pipelined copy loops", () => {
  it.each([
    ["double buffering, 16-byte copies", { stages: 2, lanes: 4 }],
    ["triple buffering, 4-byte copies", { stages: 3, lanes: 1 }],
    ["double buffering, 8-byte copies", { stages: 2, lanes: 2 }],
    ["double buffering, 16-byte copies zero-filled past the end of A", { stages: 2, lanes: 4, validElements: 1000 }],
    ["triple buffering, 4-byte copies zero-filled past the end of A", { stages: 3, lanes: 1, validElements: 250 }],
  ] as const)("%s: equal to the sequential executor, with no race and no uninitialised read", (_what, opts) => {
    expectExactAgreement(compare(opts));
  });

  it("without the waits, the consumers read shared memory before the copies land: wrong results and races", () => {
    const r = compare({ stages: 2, lanes: 4, wait: "missing" });
    expect(r.matches).toBe(false);
    expect(r.simulation.uninitializedReadCount).toBeGreaterThan(0);
    expect(r.simulation.raceCount).toBeGreaterThan(0);
  });

  it("with one group too many allowed in flight, the consumer reads a tile that has not landed", () => {
    const r = compare({ stages: 3, lanes: 1, wait: "lenient" });
    expect(r.matches).toBe(false);
    // The race is the copy landing (at a later wait) on what another thread already read.
    expect(r.simulation.races[0]).toMatchObject({ buffer: "A_shared" });
  });

  it("without the barrier after the wait, a thread reads another thread's copy before that thread waited: a read-after-write race", () => {
    const r = compare({ stages: 2, lanes: 4, syncAfterWait: false });
    expect(r.matches).toBe(false);
    const kinds = new Set(r.simulation.races.map((x) => x.kind));
    expect(kinds.has("read-after-write") || kinds.has("write-after-read")).toBe(true);
    expect(r.simulation.races[0]!.access).toContain("A_shared");
  });

  it("reports a cp.async that reads past the end of its source with the copy named", () => {
    // Drop the zero-fill predicate: the last tiles read past the 1000 elements of A.
    const module = pipelinedModule({ stages: 2, lanes: 4, validElements: 1000 }, (s) =>
      s.replace(/T\.if_then_else\([^,]+ < 1000, (A\[T\.Ramp\([^\]]+\)\]), T\.Broadcast\(T\.float32\(0\), 4\)\)/g, "$1"),
    );
    let err: unknown;
    try {
      simulate(module, randomArgs(module.source, 0));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OutOfBoundsError);
    expect((err as OutOfBoundsError).buffer).toBe("A");
    expect((err as Error).message).toMatch(/out-of-bounds load from buffer A .*index 1000 is outside the valid range \[0, 1000\).*T\.ptx_cp_async of A\[/);
  });

  it("matches for random pipeline shapes, and fails with a lenient wait (property)", () => {
    const shape = fc
      .record({
        stages: fc.constantFrom(2 as const, 3 as const),
        lanes: fc.constantFrom(1 as const, 2 as const, 4 as const),
        extraTiles: fc.integer({ min: 0, max: 4 }),
        threads: fc.integer({ min: 1, max: 12 }),
        cut: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
      })
      .map(({ stages, lanes, extraTiles, threads, cut }) => {
        const tiles = stages + extraTiles;
        const total = tiles * threads * lanes;
        const validElements = cut === undefined ? undefined : lanes * (1 + (cut % (total / lanes)));
        return { stages, lanes, tiles, threads, validElements } satisfies AsyncCopyLoopOptions;
      });
    fc.assert(
      fc.property(shape, fc.integer({ min: 0, max: 1000 }), (opts, seed) => {
        const good = compare(opts, seed);
        expect(good.passed, JSON.stringify(opts)).toBe(true);
        expect(good.simulation.uninitializedReadCount).toBe(0);
        expect(compare({ ...opts, wait: "lenient" }, seed).matches, JSON.stringify(opts)).toBe(false);
      }),
      { seed: 5, numRuns: 40 },
    );
  });
});
