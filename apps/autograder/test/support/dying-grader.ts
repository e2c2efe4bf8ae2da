/**
 * A grader that dies abruptly (SIGKILL, so it cannot clean up) right after its GPU worker has
 * answered one request, for the test that its worker process does not outlive it (an idle worker
 * exits when its IPC channel closes; nothing in it may keep it alive). Prints the worker's pids
 * and the request's result as JSON before it dies. TESSERA_FAKE_GPU_DIR names the
 * fake GPU's folder. The test runs it from fake-gpu.ts's bundle.
 */
import { Schedule } from "@tessera/schedule";
import { naiveSchedule, workload } from "../../../../assignments/gemm-relu-add/solution/gemm_relu_add.js";
import { GpuWorker } from "../../src/gpu/index.js";
import { FAKE_GPU_WORKER } from "./fake-gpu.js";
import { DEFAULT_ASSIGNMENT } from "../../src/assignment.js";

const n = 64;
const worker = new GpuWorker("Tesla T4", FAKE_GPU_WORKER);
const sch = new Schedule(workload(n));
naiveSchedule(sch);
const settings = {
  sizes: { full: n, reduced: 32 },
  rounds: 1,
  inputRange: [-1, 1] as [number, number],
  rtol: 1e-4,
  atol: 1e-4,
  onMismatch: "zero-part" as const,
};
const outcome = await worker.numerics({ assignment: DEFAULT_ASSIGNMENT, schedule: sch, settings, seed: 1 });
console.log(JSON.stringify({ pids: worker.workerPids, passed: outcome.passed }));
process.kill(process.pid, "SIGKILL");
