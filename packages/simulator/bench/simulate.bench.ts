/**
 * Times the simulator at n³ (default 256) on two gemm+ReLU+add kernels: the hand-lowered tiled
 * kernel of the tests (16 blocks × 256 threads, two barriers per k chunk) and the course's manual
 * schedule as `lower` produces it; with the race detector on or off, and with the bank-conflict
 * model on top of either. Prints the fastest of `rounds` runs (default 5) in CPU time, which
 * other processes on the machine disturb less than wall time.
 * Run: npx tsx --conditions=@tessera/source packages/simulator/bench/simulate.bench.ts [n] [rounds]
 */
import { lower } from "@tessera/codegen";
import { manualSchedule } from "@tessera/corpus";
import { gemmReluAdd, randomArgs } from "@tessera/ir";
import { type SimulationOptions, simulate } from "../src/index.js";
import { moduleFromLoweredScript, tiledGemmKernel } from "../test/helpers.js";

const n = Number(process.argv[2] ?? 256);
const rounds = Number(process.argv[3] ?? 5);
const modules = [
  { name: "hand-lowered tiled gemm", module: moduleFromLoweredScript(tiledGemmKernel(n)) },
  { name: "lowered manual schedule", module: lower(manualSchedule(n).func, "nvidia/tesla-t4") },
];
const settings: readonly { label: string; opts: SimulationOptions }[] = [
  { label: "races off", opts: { detectRaces: false } },
  { label: "races on ", opts: { detectRaces: true } },
  { label: "races off + bank conflicts", opts: { detectRaces: false, bankConflicts: true } },
  { label: "races on  + bank conflicts", opts: { detectRaces: true, bankConflicts: true } },
];
const args = randomArgs(gemmReluAdd(n).func, 0);

function cpuMs(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

for (const { name, module } of modules) {
  const best = settings.map(() => Infinity);
  for (let round = 0; round < rounds; round++) {
    settings.forEach(({ opts }, k) => {
      best[k] = Math.min(
        best[k]!,
        cpuMs(() => simulate(module, args, opts)),
      );
    });
  }
  settings.forEach(({ label }, k) => console.log(`${n}³ ${name}, ${label}: ${best[k]!.toFixed(0)} ms CPU (best of ${rounds})`));
}
