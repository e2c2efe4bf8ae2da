import { gemmReluAdd, printTVMScript } from "@tessera/ir";
import { compareWithReference, formatComparison } from "@tessera/simulator";
import { it, expect } from "vitest";
import { replayWithPostprocs } from "../../src/index.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { withFp32Precision } from "../../src/precision/fp32-precision.js";
import { spaceOf } from "../space-gpu/helpers.js";
it("x3 wgmma space", () => {
  const func = withFp32Precision(gemmReluAdd(128).func, "3xtf32");
  const space = spaceOf(func);
  console.log(space.spaces.length);
  console.log(printTVMScript(space.spaces[1]!.func).slice(0, 3000));
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    const out = replayWithPostprocs(space.ctx, space.spaces[1]!.trace, space.gen.postprocs, { seed, freshDecisions: true });
    if (!out.ok) throw new Error(`seed ${seed}: ${out.reason}: ${out.detail.slice(0, 3000)}`);
    const module = loweredModuleFor(out.sch.func)!;
    const report = compareWithReference(module, func, { seed: 5, widenForDType: false, rtol: 0, atol: 1e-5 });
    console.log(formatComparison(report));
    expect(report.passed && report.simulation.raceCount === 0, formatComparison(report)).toBe(true);
  }
}, 600000);
