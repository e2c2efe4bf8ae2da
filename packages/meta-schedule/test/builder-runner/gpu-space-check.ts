/**
 * The tensor-core design spaces' programs on a real GPU against the CPU executor (no test runner
 * needed): for the fp16 GEMMs at 256³ — float32 C (`mmaGemm`) and float16 C (`halfOutputGemm`, the
 * cast fused into the store) — fresh samples of every design space (mma.sync and wgmma) and the
 * wgmma configuration bench:tune's searches found best (128×256 tiles, 3 stages, TMA) are built
 * (LocalBuilder) and run (LocalRunner) once on seeded random inputs, each output checked against
 * the executor's (float16 outputs to two ulps: toleranceForDType). The simulator cannot check what
 * it does not run — the CUDA C of the intrinsics' helpers (the float32→float16 pair stores) — this does.
 * Prints one line per program and a summary; exits 1 when any program failed or disagreed.
 * From sources: `tsx --conditions=@tessera/source <this file> [--samples N]`; bundled as ms-gpu-space-check.
 */
import { parseArgs } from "node:util";
import { cuda } from "@tessera/runtime";
import { LocalBuilder, LocalRunner, argsInfoOf, referenceChecker } from "../../src/index.js";
import { cpuReference } from "../../src/runner/checker.js";
import { SPACE_CHECK_TARGET, spaceCheckWorkloads } from "./gpu-space-check-candidates.js";

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { samples: { type: "string", default: "4" } } });
  const samples = Number(values.samples);
  if (!Number.isInteger(samples) || samples < 0) throw new RangeError(`--samples must be a non-negative integer, got ${values.samples}`);
  const workloads = spaceCheckWorkloads(samples);
  if (!cuda.available()) {
    const count = workloads.reduce((n, w) => n + w.candidates.length, 0);
    console.log(`gpu-space-check: ${count} programs sampled; not run, no CUDA: ${cuda.unavailableReason() ?? "unknown reason"}`);
    return;
  }
  let failed = 0;
  for (const { func, candidates } of workloads) {
    const builder = new LocalBuilder({ cacheDir: false });
    const built = await builder.build(candidates.map((c) => ({ func: c.func, target: SPACE_CHECK_TARGET })));
    await builder.dispose();
    const runner = new LocalRunner({ timeoutSec: 30, checker: referenceChecker(cpuReference(func)) });
    const argsInfo = argsInfoOf(func);
    const ran = await runner.run(built.flatMap((b) => (b.ok ? [{ artifact: b.artifact, argsInfo }] : [])));
    await runner.dispose();
    let next = 0;
    built.forEach((b, k) => {
      const r = b.ok ? ran[next++]! : undefined;
      const verdict = !b.ok ? `build failed: ${b.error}` : r!.ok ? `ok, ${(r!.runSecs[0]! * 1e3).toFixed(4)} ms` : `FAILED: ${r!.error}`;
      if (!b.ok || !r!.ok) failed++;
      console.log(`${candidates[k]!.name}: ${verdict}`);
    });
  }
  console.log(failed === 0 ? "gpu-space-check: every program agrees with the executor" : `gpu-space-check: ${failed} program(s) failed`);
  if (failed > 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
