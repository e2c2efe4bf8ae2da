/** Test support: the WMMA GEMM simulated beside the executor on the unscheduled function. */
import { lower } from "@tessera/codegen";
import { type WmmaGemmParams, wmmaGemm, wmmaGemmSchedule } from "@tessera/corpus";
import { compilePrimFunc, randomArgs } from "@tessera/ir";
import { simulate } from "../../src/index.js";

export /** Elements whose bits differ between the executor's C and the simulator's, on seeded inputs. */
function differingBits(n: number, seed: number, params?: WmmaGemmParams): { differing: number; distinct: number; races: number } {
  const original = wmmaGemm(n);
  const module = lower(wmmaGemmSchedule(n, params), "nvidia/a100");
  const expected = randomArgs(original, seed, { low: -2, high: 2 });
  const simulated = expected.map((a) => a.slice());
  expected[2]!.fill(Number.NaN);
  simulated[2]!.fill(Number.NaN);
  compilePrimFunc(original).run(expected);
  const report = simulate(module, simulated);
  const want = new Uint32Array(expected[2]!.buffer);
  const got = new Uint32Array(simulated[2]!.buffer);
  let differing = 0;
  for (let i = 0; i < want.length; i++) if (want[i] !== got[i]) differing++;
  return { differing, distinct: new Set(want).size, races: report.raceCount };
}
