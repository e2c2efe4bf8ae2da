import { parsePrimFunc } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Schedule } from "../src/index.js";
import { NotStagePipelineError } from "../src/analysis/scope-root.js";
import { expectScheduleError, runBoth } from "./support.js";

interface Stage {
  readonly op: string;
  /** Intermediate buffers may be stored transposed (a bijective, non-identity index map). */
  readonly transposed: boolean;
  readonly readsInput: boolean;
}

const OPS = ["+ 3", "* 2", "- 5", "max"];

/** An int32 elementwise chain A → B0 → … → Out over a 4×6 grid. */
function chainText(stages: readonly Stage[]): string {
  const n = stages.length;
  const name = (k: number) => (k === n - 1 ? "Out" : `B${k}`);
  const access = (k: number) => (k < n - 1 && stages[k]!.transposed ? "[vj, vi]" : "[vi, vj]");
  const lines = ["@T.prim_func", 'def chain(A: T.Buffer((4, 6), "int32"), Out: T.Buffer((4, 6), "int32")):'];
  stages.forEach((s, k) => {
    if (k < n - 1) lines.push(`    B${k} = T.alloc_buffer(${s.transposed ? "(6, 4)" : "(4, 6)"}, "int32")`);
  });
  stages.forEach((s, k) => {
    const src = k === 0 ? "A[vi, vj]" : `${name(k - 1)}${access(k - 1)}`;
    let value = s.op === "max" ? `T.max(${src}, 0)` : `${src} ${s.op}`;
    if (s.readsInput && k > 0) value = `${value} + A[vi, vj]`;
    lines.push(
      "    for i, j in T.grid(4, 6):",
      `        with T.block("S${k}"):`,
      '            vi, vj = T.axis.remap("SS", [i, j])',
      `            ${name(k)}${access(k)} = ${value}`,
    );
  });
  return `${lines.join("\n")}\n`;
}

const stageArb = fc.record({ op: fc.constantFrom(...OPS), transposed: fc.boolean(), readsInput: fc.boolean() });

describe("inline properties", () => {
  it("compute-inline / reverse-compute-inline of random eligible blocks preserve outputs", () => {
    fc.assert(
      fc.property(
        fc.array(stageArb, { minLength: 2, maxLength: 5 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        fc.nat(1000),
        (stages, picks, seed) => {
          const original = parsePrimFunc(chainText(stages));
          const sch = new Schedule(original);
          for (const pick of picks) {
            const names = sch.func.body.kind === "BlockRealize" ? listBlocks(sch) : [];
            if (names.length < 2) break;
            // Blocks in chain order: all but the last can be inlined, all but the first reverse-inlined.
            const k = pick % (2 * (names.length - 1));
            if (k < names.length - 1) sch.computeInline(sch.getBlock(names[k]!));
            else sch.reverseComputeInline(sch.getBlock(names[k - (names.length - 1) + 1]!));
            const [before, after] = runBoth(original, sch.func, seed);
            expect(after).toEqual(before);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

function listBlocks(sch: Schedule): string[] {
  return sch.getChildBlocks(sch.getBlock("root")).map((b) => sch.get(b).name);
}

describe("stage pipeline", () => {
  it("refuses to inline in a scope with a write-after-read dependency (NotStagePipelineError)", () => {
    const sch = new Schedule(
      parsePrimFunc(`
@T.prim_func
def f(A: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
    for i in range(8):
        with T.block("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = B[vi]
    for i in range(8):
        with T.block("A2"):
            vi = T.axis.spatial(8, i)
            A[vi] = 0
`),
    );
    const b = sch.getBlock("B");
    expectScheduleError(sch, () => sch.computeInline(b), NotStagePipelineError, "is not a stage pipeline");
  });
});
