/** Test support: a lowered tensor-core GEMM (C = A·B, C the third argument) simulated beside the executor on the unscheduled function. */
import type { LoweredModule } from "@tessera/codegen";
import { type PrimFunc, compilePrimFunc, randomArgs } from "@tessera/ir";
import { simulate } from "../src/index.js";

export interface BitComparison {
  /** Output elements whose bits differ between the executor and the simulator. */
  readonly differing: number;
  /** Distinct output values (a kernel that wrote one value everywhere would match nothing by luck). */
  readonly distinct: number;
  readonly races: number;
}

/** Runs `original` in the executor and `module` in the simulator on the same seeded inputs, the output (argument `output`) poisoned with NaN first. */
export function differingGemmBits(original: PrimFunc, module: LoweredModule, seed: number, output = 2): BitComparison {
  const expected = randomArgs(original, seed, { low: -2, high: 2 });
  const simulated = expected.map((a) => a.slice());
  expected[output]!.fill(Number.NaN);
  simulated[output]!.fill(Number.NaN);
  compilePrimFunc(original).run(expected);
  const report = simulate(module, simulated);
  const want = new Uint32Array(expected[output]!.buffer);
  const got = new Uint32Array(simulated[output]!.buffer);
  let differing = 0;
  for (let i = 0; i < want.length; i++) if (want[i] !== got[i]) differing++;
  return { differing, distinct: new Set(want).size, races: report.raceCount };
}
