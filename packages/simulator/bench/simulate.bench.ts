/**
 * Times the simulator on the course's manual gemm+ReLU+add schedule shape at 256³ (16 blocks ×
 * 256 threads, two barriers per k chunk), with and without the race detector.
 * Run: npx tsx --conditions=@tessera/source packages/simulator/bench/simulate.bench.ts
 */
import { gemmReluAdd, randomArgs } from "@tessera/ir";
import { simulate } from "../src/index.js";
import { moduleFromLoweredScript, tiledGemmKernel } from "../test/helpers.js";

const n = Number(process.argv[2] ?? 256);
const module = moduleFromLoweredScript(tiledGemmKernel(n));
const args = randomArgs(gemmReluAdd(n).func, 0);
for (const detectRaces of [true, false, true, false]) {
  const report = simulate(module, args, { detectRaces });
  console.log(`${n}³ tiled gemm, race detector ${detectRaces ? "on " : "off"}: ${report.timeMs.toFixed(0)} ms`);
}
