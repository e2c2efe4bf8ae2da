/**
 * The memo of simulated numerics checks: which schedules share a key (none that could be told
 * apart by the check), and how the memo keeps, copies and forgets outcomes.
 */
import { type LoopRV, Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import { type NumericsKeyParts, NumericsMemo, numericsKey } from "../src/grade/numerics-memo.js";
import type { NumericsOutcome } from "../src/grade/numerics-types.js";
import { parsePrimFunc, structuralEqual } from "@tessera/ir";

const binding = assignmentBinding("gemm-relu-add");
const PARTS: NumericsKeyParts = { check: "sampled", assignment: binding.name, target: "nvidia/tesla-t4", settings: { rounds: 1 }, seed: 1, options: {} };

/** The workload at 64³ with i split by `factor` and, optionally, the outer loop renamed through a cache stage. */
function tiled(factor: number, cacheA = false): Schedule {
  const sch = new Schedule(binding.workload(64));
  const gemm = sch.getBlock("gemm");
  const [i] = sch.getLoops(gemm) as [LoopRV];
  sch.split(i, [null, factor]);
  if (cacheA) sch.cacheRead(gemm, 0, "shared");
  return sch;
}

function outcome(passed: boolean, error?: string): NumericsOutcome {
  return { passed, backend: "simulator", device: "CPU simulator", size: 64, shape: "64×64×64", rounds: [], ...(error === undefined ? {} : { error }) };
}

describe("numericsKey", () => {
  it("is the same for the same schedule built twice, and differs for another split, another stage, seed, check or setting", () => {
    const key = numericsKey(tiled(8), PARTS);
    expect(numericsKey(tiled(8), PARTS)).toBe(key);
    const others = [
      numericsKey(tiled(16), PARTS),
      numericsKey(tiled(8, true), PARTS),
      numericsKey(tiled(8), { ...PARTS, seed: 2 }),
      numericsKey(tiled(8), { ...PARTS, check: "reduced" }),
      numericsKey(tiled(8), { ...PARTS, settings: { rounds: 2 } }),
      numericsKey(tiled(8), { ...PARTS, options: { workBudget: 10 } }),
      numericsKey(tiled(8), { ...PARTS, assignment: "another" }),
    ];
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
  });

  it("tells apart schedules of one function whose traces replay differently at another size (regression: a literal split's pre-check note was lost)", () => {
    const split = (factors: (number | null)[]) => {
      const sch = new Schedule(binding.workload(64));
      const [i] = sch.getLoops(sch.getBlock("gemm")) as [LoopRV];
      sch.split(i, factors);
      return sch;
    };
    const literal = split([8, 8]);
    const inferred = split([null, 8]);
    expect(structuralEqual(literal.func, inferred.func, { compareNames: true })).toBe(true);
    expect(numericsKey(literal, PARTS)).not.toBe(numericsKey(inferred, PARTS));
  });

  it("tells apart functions that are equal as structure but not by name, or by the sign of a zero", () => {
    const script = (name: string, zero: string) => `
@T.prim_func
def f(A: T.Buffer((4,), "float32"), ${name}: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("b"):
            vi = T.axis.spatial(4, i)
            ${name}[vi] = T.max(A[vi], T.float32(${zero}))
`;
    const keyOf = (name: string, zero: string) => numericsKey(new Schedule(parsePrimFunc(script(name, zero))), PARTS);
    expect(keyOf("B", "0")).toBe(keyOf("B", "0"));
    expect(keyOf("C", "0")).not.toBe(keyOf("B", "0"));
    expect(keyOf("B", "-0.0")).not.toBe(keyOf("B", "0"));
  });
});

describe("NumericsMemo", () => {
  it("runs a check once per key and answers again from memory, with a copy the caller may change", () => {
    const memo = new NumericsMemo();
    let runs = 0;
    const check = () => {
      runs++;
      return outcome(true);
    };
    const first = memo.remember("k", check);
    (first as { notes?: string[] }).notes = ["changed by the caller"];
    const second = memo.remember("k", check);
    expect(runs).toBe(1);
    expect(second).toEqual(outcome(true));
    expect(memo.stats).toEqual({ hits: 1, misses: 1 });
  });

  it("forgets the least recently used outcome beyond its capacity", () => {
    const memo = new NumericsMemo(2);
    const runs: string[] = [];
    const check = (key: string) => () => {
      runs.push(key);
      return outcome(true);
    };
    memo.remember("a", check("a"));
    memo.remember("b", check("b"));
    memo.remember("a", check("a"));
    memo.remember("c", check("c"));
    memo.remember("a", check("a"));
    memo.remember("b", check("b"));
    expect(runs).toEqual(["a", "b", "c", "b"]);
  });

  it("does not remember a check that throws, synchronous or not", async () => {
    const memo = new NumericsMemo();
    expect(() =>
      memo.remember("k", () => {
        throw new Error("simulator crashed");
      }),
    ).toThrow("simulator crashed");
    await expect(memo.rememberAsync("k", () => Promise.reject(new Error("worker crashed")))).rejects.toThrow("worker crashed");
    expect(memo.remember("k", () => outcome(false, "wrong"))).toEqual(outcome(false, "wrong"));
    expect(await memo.rememberAsync("k", () => Promise.resolve(outcome(true)))).toEqual(outcome(false, "wrong"));
  });
});
