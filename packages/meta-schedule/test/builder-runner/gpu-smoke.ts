/**
 * The builder and the runner on a real GPU (no test runner needed):
 *   - LocalBuilder compiles the corpus's 2048³ gemm schedules with NVRTC in parallel;
 *   - LocalRunner times them in its child process (TVM's evaluator: number 3, repeat 1,
 *     min_repeat_ms 100) and checks that they agree with the first one;
 *   - a candidate that writes far out of bounds (an illegal address) and one that never ends
 *     fail with the reason, and the candidates after them are still measured.
 * Without a GPU it still builds in the workers and prints the simulated runner's estimates.
 * Prints a JSON report. From sources: `tsx --conditions=@tessera/source <this file>`; on the GPU
 * host, bundle it beside the bundle's ms-runner-child.mjs / ms-build-worker.mjs.
 */
import { target } from "@tessera/codegen";
import { fastSchedule, manualSchedule, naiveSchedule } from "@tessera/corpus";
import { compileCuda, cuda } from "@tessera/runtime";
import { type BuiltArtifact, LocalBuilder, LocalRunner, type RunnerInput, SimulatedRunner, argsInfoOf, firstResultChecker } from "../../src/index.js";

async function main(): Promise<void> {
  const t = target("nvidia/h100");
  const schedules = { naive: naiveSchedule(2048), manual: manualSchedule(2048), fast: fastSchedule(2048) };
  const builder = new LocalBuilder({ log: (level, m) => console.error(`[${level}] ${m}`), cacheDir: false });
  const t0 = performance.now();
  const built = await builder.build(Object.values(schedules).map((s) => ({ func: s.func, target: t })));
  const buildWallMs = performance.now() - t0;
  await builder.dispose();
  const artifacts = built.map((r, i) => {
    if (!r.ok) throw new Error(`candidate ${i} failed to build: ${r.error}`);
    return r.artifact;
  });
  const argsInfo = argsInfoOf(schedules.naive.func);
  const simulated = await new SimulatedRunner().run(artifacts.map((artifact) => ({ artifact, argsInfo })));
  const simulatedMs = simulated.map((r) => (r.ok ? r.runSecs[0]! * 1e3 : r.error));
  if (!cuda.available()) {
    // Without a GPU: the build workers ran (from the bundle too), the simulated runner estimated.
    console.log(JSON.stringify({ builtInWorkers: builder.workersStarted, simulatedMs }));
    console.log(`gpu-smoke: the GPU part is skipped, no CUDA: ${cuda.unavailableReason() ?? "unknown reason"}`);
    return;
  }
  const device = cuda.device(0);

  // Faulty variants of the naive kernel: an out-of-bounds store, and a kernel that never ends.
  const naive = artifacts[0]!;
  const variant = async (name: string, source: string): Promise<BuiltArtifact> => {
    const compiled = await compileCuda(source, { arch: device.arch, cache: false, name: `${name}.cu` });
    return { ...naive, name, source, image: compiled.image, arch: compiled.target };
  };
  const outOfBounds = await variant("out_of_bounds", naive.source.replace(/\bD\[/, "D[(1ll << 40) + "));
  const kernelStart = naive.source.indexOf("{", naive.source.indexOf('extern "C" __global__')) + 1;
  const spin = "\n  for (volatile int spin = 0; spin >= 0; spin = spin * 0 + 1) {}";
  const endless = await variant("endless", naive.source.slice(0, kernelStart) + spin + naive.source.slice(kernelStart));

  const inputs: RunnerInput[] = [...artifacts, outOfBounds, endless, artifacts[2]!].map((artifact) => ({ artifact, argsInfo }));
  const runner = new LocalRunner({ timeoutSec: 20, checker: firstResultChecker({ rtol: 1e-3, atol: 1e-3 }) });
  const t1 = performance.now();
  const results = await runner.run(inputs);
  const runWallMs = performance.now() - t1;
  await runner.dispose();
  console.log(
    JSON.stringify(
      {
        device: device.name,
        uvThreadPoolSize: process.env.UV_THREADPOOL_SIZE ?? "(default 4)",
        buildWallMs: Math.round(buildWallMs),
        builds: built.map((r) =>
          r.ok ? { name: r.artifact.name, buildMs: Math.round(r.buildMs), arch: r.artifact.arch, imageBytes: r.artifact.image?.length } : r,
        ),
        runWallMs: Math.round(runWallMs),
        childrenStarted: runner.childrenStarted,
        runs: results.map((r, i) => ({
          candidate: ["naive", "manual", "fast", "out_of_bounds", "endless", "fast again"][i],
          ...(r.ok ? { ms: r.runSecs.map((s) => s * 1e3) } : { error: r.error }),
        })),
        simulatedMs,
      },
      null,
      2,
    ),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
