/** bench/decision-names.ts: the default CUDA space's sampling decisions named by what they set, and read by value. */
import { gemmReluAdd } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { decisionNames, decisionValues } from "../../bench/decision-names.js";
import { replayWithPostprocs } from "../../src/index.js";
import { spaceOf } from "./helpers.js";

const { ctx, spaces } = spaceOf(gemmReluAdd(2048).func);
const space = spaces[0]!.trace;
const samplingSteps = space.instructions.filter((i) => i.kind.name === "SampleCategorical" || i.kind.name === "SamplePerfectTile");

describe("decision names and values", () => {
  it("names every sampling step once, by the annotation it sets on which block or loop, or the loop it splits", () => {
    const names = decisionNames(space);
    expect(names).toHaveLength(samplingSteps.length);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        "k split (8/16)",
        "A_shared cooperative_fetch_via_registers (0/1)",
        "B_shared cooperative_fetch_via_registers (0/1)",
        "k_0 software_pipeline (0/1)",
        "root unroll_implicit (0/16/64/512/1024/2048)",
      ]),
    );
  });

  it("reads a sample's decisions as the candidates they chose, and refuses decisions of another space", () => {
    const sample = replayWithPostprocs(ctx, space, [], { seed: 3, freshDecisions: true });
    if (!sample.ok) throw new Error(sample.detail);
    const decisions = sample.sch.trace.instructions.filter((i) => samplingSteps.some((s) => s.kind === i.kind)).map((i) => sample.sch.trace.getDecision(i));
    const values = decisionValues(space, decisions)!;
    const unroll = decisionNames(space).indexOf("root unroll_implicit (0/16/64/512/1024/2048)");
    expect([0, 16, 64, 512, 1024, 2048].map(String)).toContain(values[unroll]);
    expect(decisionValues(space, decisions.slice(1))).toBeUndefined();
    expect(
      decisionValues(
        space,
        decisions.map((d, k) => (k === unroll ? 6 : d)),
      ),
    ).toBeUndefined();
  });
});
