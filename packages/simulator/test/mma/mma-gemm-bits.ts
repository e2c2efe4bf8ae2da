/** Test support: a lowered mma GEMM simulated beside the executor on the unscheduled function. */
import type { LoweredModule } from "@tessera/codegen";
import { mmaGemm } from "@tessera/corpus";
import { compilePrimFunc, randomArgs } from "@tessera/ir";
import { simulate } from "../../src/index.js";

/** Elements whose bits differ between the executor's C and the simulator's, on seeded inputs. */
export function differingBits(module: LoweredModule, n: number, seed: number): { differing: number; distinct: number; races: number } {
  const expected = randomArgs(mmaGemm(n), seed, { low: -2, high: 2 });
  const simulated = expected.map((a) => a.slice());
  expected[2]!.fill(Number.NaN);
  simulated[2]!.fill(Number.NaN);
  compilePrimFunc(mmaGemm(n)).run(expected);
  const report = simulate(module, simulated);
  const want = new Uint32Array(expected[2]!.buffer);
  const got = new Uint32Array(simulated[2]!.buffer);
  let differing = 0;
  for (let i = 0; i < want.length; i++) if (want[i] !== got[i]) differing++;
  return { differing, distinct: new Set(want).size, races: report.raceCount };
}
