/**
 * A GPU worker backend without a GPU (GpuWorkerOptions.backendModule), for the isolation tests.
 * What it does is read from `$TESSERA_FAKE_GPU_DIR/mode` at each numerics request, so a test can
 * change it between submissions (a file of several lines gives one per request, the last one then stays):
 *   ok       numerics of the scheduled function that crossed, in the CPU simulator (sampled blocks
 *            of the full-size kernel); timing gives 1 ms
 *   crash    the process dies of SIGSEGV, as a native crash would
 *   hang     the request never ends (the event loop is blocked too)
 *   sticky   the driver reports CUDA_ERROR_ILLEGAL_ADDRESS, and every later request of this process
 *            does too, as a real context after a fault would
 * Each process appends its pid to `$TESSERA_FAKE_GPU_DIR/pids`, so a test can see them all gone.
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lower } from "@tessera/codegen";
import { CudaError } from "@tessera/runtime";
import { sampledNumerics } from "../../src/grade/sampled-numerics.js";
import { SIMULATED_TARGET } from "../../src/grade/simulator-numerics.js";
import type { GpuWorkBackend } from "../../src/gpu/worker/work-backend.js";
import { workloadSizeLabel } from "../../src/workload-size.js";

const dir = process.env.TESSERA_FAKE_GPU_DIR;
if (dir === undefined) throw new Error("fake-gpu-work-backend: set TESSERA_FAKE_GPU_DIR");
appendFileSync(join(dir, "pids"), `${process.pid}\n`);

export const FAKE_DEVICE = "Fake GPU (CPU simulator)";

let poisoned = false;

function illegalAddress(): CudaError {
  return new CudaError("an illegal memory access was encountered", "CUDA_ERROR_ILLEGAL_ADDRESS", "cuCtxSynchronize", "gemm_relu_add_kernel", 700);
}

/** The first line of the mode file; when there are more, that line is used up (the last one stays). */
function mode(): string {
  const file = join(dir!, "mode");
  let modes: string[];
  try {
    modes = readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "");
  } catch {
    return "ok";
  }
  if (modes.length > 1) writeFileSync(file, modes.slice(1).join("\n"));
  return modes[0]?.trim() ?? "ok";
}

export const backend: GpuWorkBackend = {
  async numerics(func, binding, settings, seed) {
    if (poisoned) throw illegalAddress();
    switch (mode()) {
      case "crash":
        process.kill(process.pid, "SIGSEGV");
        break;
      case "hang":
        for (;;) {
          // A kernel that never finishes.
        }
      case "sticky":
        poisoned = true;
        throw illegalAddress();
      default:
        break;
    }
    const n = settings.sizes.full;
    const sampled = sampledNumerics({ module: lower(func, SIMULATED_TARGET), binding, n, settings, seed, workBudget: 1e8 });
    if (!sampled.ran)
      return { passed: false, backend: "gpu", device: FAKE_DEVICE, size: n, shape: workloadSizeLabel(binding, n), rounds: [], error: sampled.why };
    const passed = sampled.error === undefined && sampled.rounds.every((r) => r.mismatches === 0);
    return {
      passed,
      backend: "gpu",
      device: FAKE_DEVICE,
      size: n,
      shape: workloadSizeLabel(binding, n),
      rounds: sampled.rounds,
      ...(sampled.error === undefined ? {} : { error: sampled.error }),
    };
  },
  async time(_func, _binding, timing) {
    if (poisoned) throw illegalAddress();
    return { meanMs: 1, medianMs: 1, minMs: 1, maxMs: 1, stdMs: 0, repeats: timing.repeat, number: timing.number, device: FAKE_DEVICE };
  },
};
