/**
 * The sampling decisions of a design space by name and by value, for reports read without replay
 * (knob-census.ts): a decision is named by what the space does with it — the annotation its value
 * sets on a block or loop, or the loop whose split it feeds — and read as the value it chose.
 */
import type { Instruction, Trace } from "@tessera/schedule";

/** A name for each sampling step of `space`: the annotation its value sets, or the loop whose split it feeds. */
export function decisionNames(space: Trace): string[] {
  const insts = space.instructions;
  const names: string[] = [];
  const consumerOf = (inst: Instruction, from: number): string => {
    for (const later of insts.slice(from + 1)) {
      if (!later.inputs.some((x) => (inst.outputs as readonly unknown[]).includes(x))) continue;
      if (later.kind.name === "Annotate")
        return `${String(later.inputs[0]).replace(/^\w+RV\((.*)\)$/, "$1")} ${String(later.attrs[0]).replace(/^meta_schedule\./, "")}`;
      if (later.kind.name === "Split") return `${String(later.inputs[0]).replace(/^\w+RV\((.*)\)$/, "$1")} split`;
      return later.kind.name;
    }
    return "unused";
  };
  insts.forEach((inst, k) => {
    if (inst.kind.name === "SampleCategorical") names.push(`${consumerOf(inst, k)} (${(inst.attrs[0] as number[]).join("/")})`);
    else if (inst.kind.name === "SamplePerfectTile") names.push(`${consumerOf(inst, k)} tile`);
  });
  const seen = new Map<string, number>();
  return names.map((n) => {
    const count = (seen.get(n) ?? 0) + 1;
    seen.set(n, count);
    return count === 1 ? n : `${n} #${count}`;
  });
}

/**
 * The value of each sampling decision (a categorical's candidate, a tile's factors) as text, or
 * undefined when `decisions` are not this space's (another count, a candidate index out of range).
 */
export function decisionValues(space: Trace, decisions: readonly unknown[]): string[] | undefined {
  const sampling = space.instructions.filter((i) => i.kind.name === "SampleCategorical" || i.kind.name === "SamplePerfectTile");
  if (sampling.length !== decisions.length) return undefined;
  const values: string[] = [];
  for (const [k, inst] of sampling.entries()) {
    const d = decisions[k];
    const value = inst.kind.name === "SampleCategorical" ? (inst.attrs[0] as readonly number[])[d as number] : Array.isArray(d) ? d : undefined;
    if (value === undefined) return undefined;
    values.push(typeof value === "number" ? String(value) : JSON.stringify(value));
  }
  return values;
}
