/** AutoInline and InlineConstantScalars, block by block. */
import { target } from "@tessera/codegen";
import { compute, createPrimFunc, floatImm, gemmReluAdd, mul, placeholder } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { tuneContext, workloadOf } from "../../src/index.js";
import { AutoInline, InlineConstantScalars } from "../../src/rules/auto-inline.js";
import { blockNamesPostOrder } from "../../src/rules/multi-level-tiling/block-query.js";

const scaled = (() => {
  const A = placeholder([8], "float32", "A");
  const S = compute([], () => floatImm(2, "float32"), "S");
  const B = compute([8], (i) => mul(A.at(i), S.at()), "B");
  return createPrimFunc([A, B], { name: "scale" });
})();
const ctx = tuneContext(workloadOf(scaled), target("nvidia/h100"));

describe("InlineConstantScalars", () => {
  it("inlines a block that writes a scalar constant into its consumers", () => {
    const sch = new Schedule(scaled);
    new InlineConstantScalars().apply(sch, sch.getBlock("S"), ctx);
    expect(blockNamesPostOrder(sch.func)).toEqual(["B", "root"]);
  });

  it("leaves other blocks alone", () => {
    const sch = new Schedule(scaled);
    new InlineConstantScalars().apply(sch, sch.getBlock("B"), ctx);
    expect(blockNamesPostOrder(sch.func)).toEqual(["S", "B", "root"]);
  });
});

describe("AutoInline", () => {
  const all = { intoProducer: true, intoConsumer: true, inlineConstTensor: true, disallowIfThenElse: false };

  it("inlines an elementwise block into its consumer", () => {
    const sch = new Schedule(gemmReluAdd(16).func);
    new AutoInline(all).apply(sch, sch.getBlock("relu"), ctx);
    expect(blockNamesPostOrder(sch.func)).toEqual(["gemm", "add", "root"]);
  });

  it("inlines an output block into its single complete producer, never into a reduction", () => {
    const sch = new Schedule(gemmReluAdd(16).func);
    new AutoInline(all).apply(sch, sch.getBlock("add"), ctx);
    expect(blockNamesPostOrder(sch.func)).toEqual(["gemm", "relu", "root"]);
    // relu now writes D; its producer is the reduction: nothing to do.
    new AutoInline(all).apply(sch, sch.getBlock("relu"), ctx);
    expect(blockNamesPostOrder(sch.func)).toEqual(["gemm", "relu", "root"]);
  });

  it("does not inline into producers unless asked, and never a reduction", () => {
    const sch = new Schedule(gemmReluAdd(16).func);
    new AutoInline({ ...all, intoProducer: false }).apply(sch, sch.getBlock("add"), ctx);
    new AutoInline(all).apply(sch, sch.getBlock("gemm"), ctx);
    expect(blockNamesPostOrder(sch.func)).toEqual(["gemm", "relu", "add", "root"]);
  });
});
