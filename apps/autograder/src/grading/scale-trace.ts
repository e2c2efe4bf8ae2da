/**
 * Moves a trace made on the full-size workload to a smaller instance of it, for checking numerics
 * on the CPU simulator. A sampled perfect tile of a loop whose extent shrank is rescaled by
 * dividing its outermost factors (2048 = [8, 4, 16, 4] → 256 = [1, 4, 16, 4]); tiles of loops
 * whose extent did not change (a fused shared-memory copy, a k chunk) are kept. The loop's extent
 * at the smaller size is found by replaying the trace up to that instruction.
 */
import type { PrimFunc } from "@tessera/ir";
import { type Decision, type LoopRV, Schedule, Trace } from "@tessera/schedule";

export type ScaledTrace = { readonly ok: true; readonly trace: Trace } | { readonly ok: false; readonly reason: string };

export function scaleTrace(trace: Trace, smaller: () => PrimFunc): ScaledTrace {
  const overrides = new Map<number, Decision>();
  const instructions = trace.instructions;
  for (let i = 0; i < instructions.length; i++) {
    const inst = instructions[i]!;
    if (inst.kind.name !== "SamplePerfectTile") continue;
    const recorded = trace.decisions.get(inst);
    if (!Array.isArray(recorded)) continue;
    const factors = recorded.map(Number);
    const prefix = new Trace(instructions.slice(0, i), trace.decisions);
    const sch = new Schedule(smaller());
    let extent: number;
    try {
      const map = prefix.applyTo(sch, { decisions: overrides });
      const loop = map.get(inst.inputs[0] as LoopRV) as LoopRV | undefined;
      const e = loop === undefined ? undefined : sch.get(loop).extent;
      if (e?.kind !== "IntImm") return { ok: false, reason: `instruction ${i}: the sampled loop has no constant extent` };
      extent = e.value;
    } catch (err) {
      return { ok: false, reason: `instruction ${i}: ${(err as Error).message}` };
    }
    const scaled = shrinkFactors(factors, extent);
    if (scaled === undefined) return { ok: false, reason: `instruction ${i}: the tile [${factors.join(", ")}] cannot be shrunk to a loop of ${extent}` };
    if (scaled.some((f, k) => f !== factors[k])) overrides.set(i, scaled);
  }
  const decisions = new Map(trace.decisions);
  for (const [i, d] of overrides) decisions.set(instructions[i]!, d);
  return { ok: true, trace: new Trace(instructions, decisions) };
}

/** Divides the outermost factors until the product is `extent`; undefined when impossible. */
export function shrinkFactors(factors: readonly number[], extent: number): number[] | undefined {
  const product = factors.reduce((a, b) => a * b, 1);
  if (product === extent) return [...factors];
  if (product % extent !== 0) return undefined;
  let ratio = product / extent;
  const out = [...factors];
  for (let k = 0; k < out.length && ratio > 1; k++) {
    const g = gcd(out[k]!, ratio);
    out[k] = out[k]! / g;
    ratio /= g;
  }
  return ratio === 1 ? out : undefined;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
