/** Shared helpers of the front-pass tests: corpus functions, pass sequences and execution checks. */
import { type Buffer, type PrimExpr, type PrimFunc, compilePrimFunc, forEachStmt, printTVMScript, randomArgs } from "@tessera/ir";
import { type CorpusEntry, scheduleCorpus } from "@tessera/corpus";
import { expect } from "vitest";
import { target } from "../../src/targets/target.js";
import type { Pass, PassContext } from "../../src/lower/pass.js";
import { PASSES_FRONT } from "../../src/lower/passes/index.js";

export const CTX: PassContext = { target: target("nvidia/tesla-t4") };

export function corpusEntry(name: string): CorpusEntry {
  const e = scheduleCorpus().find((x) => x.name === name);
  if (e === undefined) throw new Error(`no corpus entry ${name}`);
  return e;
}

/** Runs the first `count` front passes (all six by default). */
export function runFront(func: PrimFunc, count = PASSES_FRONT.length): PrimFunc {
  return runPasses(func, PASSES_FRONT.slice(0, count));
}

/** The front passes up to and including the one named `last`. */
export function runFrontThrough(func: PrimFunc, last: string): PrimFunc {
  const end = PASSES_FRONT.findIndex((p) => p.name === last);
  if (end < 0) throw new Error(`no front pass named ${last}`);
  return runFront(func, end + 1);
}

export function runPasses(func: PrimFunc, passes: readonly Pass[]): PrimFunc {
  return passes.reduce((f, p) => p.run(f, CTX), func);
}

/** The function body's TVMScript without the header comment. */
export function script(func: PrimFunc): string {
  return printTVMScript(func).replace(/^# from tvm.script import tir as T\n\n/, "");
}

/** Outputs of `func` on the seeded random inputs of `reference` (the same arrays feed both). */
function outputsOn(func: PrimFunc, reference: PrimFunc, seed: number): Float32Array[] {
  const args = randomArgs(reference, seed);
  compilePrimFunc(func).run(args);
  return args as Float32Array[];
}

/** The reference's own outputs per seed: a pass sequence checks each prefix against them, so they are computed once. */
const referenceOutputs = new WeakMap<PrimFunc, Map<number, Float32Array[]>>();

function referenceOutputsOn(reference: PrimFunc, seed: number): Float32Array[] {
  let bySeed = referenceOutputs.get(reference);
  if (bySeed === undefined) referenceOutputs.set(reference, (bySeed = new Map()));
  let outputs = bySeed.get(seed);
  if (outputs === undefined) bySeed.set(seed, (outputs = outputsOn(reference, reference, seed)));
  return outputs;
}

/** `func` computes what `reference` computes, on random inputs (all parameters compared). */
export function expectSameResults(func: PrimFunc, reference: PrimFunc, seed = 7): void {
  const want = referenceOutputsOn(reference, seed);
  const got = outputsOn(func, reference, seed);
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    const w = want[i]!;
    expect(g.length).toBe(w.length);
    let worst = 0;
    for (let k = 0; k < w.length; k++) worst = Math.max(worst, Math.abs(g[k]! - w[k]!));
    expect(worst, `parameter ${i}`).toBeLessThan(1e-4);
  });
}

/** Shape (and strides, when any) of every buffer allocated in blocks or Allocate statements, by name. */
export function allocatedShapes(func: PrimFunc): Record<string, { shape: number[]; strides?: number[] }> {
  const out: Record<string, { shape: number[]; strides?: number[] }> = {};
  const num = (e: PrimExpr): number => (e.kind === "IntImm" ? e.value : Number.NaN);
  const add = (b: Buffer) => {
    out[b.name] = { shape: b.shape.map(num), ...(b.strides.length > 0 ? { strides: b.strides.map(num) } : {}) };
  };
  forEachStmt(func.body, (s) => {
    if (s.kind === "BlockRealize") s.block.allocBuffers.forEach(add);
    if (s.kind === "Allocate") add(s.buffer);
  });
  return out;
}
