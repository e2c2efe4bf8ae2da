/**
 * GPU fault isolation without a GPU: the GpuWorker runs a fake backend (test/support) in its child
 * process, which crashes, hangs or reports a sticky CUDA error on demand. Each fault fails only its
 * own request, in the student's terms; the worker is replaced, the next request runs normally on a
 * fresh process, and no process is left behind.
 */
import { join } from "node:path";
import { execa } from "execa";
import { Schedule } from "@tessera/schedule";
import { afterEach, describe, expect, it } from "vitest";
import { naiveSchedule, workload } from "../../../assignments/gemm-relu-add/solution/gemm_relu_add.js";
import { GpuWorker, GpuWorkerPool } from "../src/gpu/index.js";
import type { Numerics } from "../src/manifest/index.js";
import { DYING_GRADER_BUNDLE, FakeGpu } from "./support/fake-gpu.js";
import { lingering } from "./support/processes.js";
import { DEFAULT_ASSIGNMENT } from "../src/assignment.js";

const N = 64;
const NUMERICS: Numerics = { sizes: { full: N, reduced: 32 }, rounds: 1, inputRange: [-1, 1], rtol: 1e-4, atol: 1e-4, onMismatch: "zero-part" };
const TIMING = { number: 1, repeat: 2, minRepeatMs: 0 };

function naive(): Schedule {
  const sch = new Schedule(workload(N));
  naiveSchedule(sch);
  return sch;
}

const request = (): Parameters<GpuWorker["numerics"]>[0] => ({ assignment: DEFAULT_ASSIGNMENT, schedule: naive(), settings: NUMERICS, seed: 3 });

describe("GpuWorker: GPU work in a child process with a watchdog (fake GPU)", () => {
  let fake: FakeGpu | undefined;
  let disposeAll: (() => void)[] = [];
  afterEach(() => {
    for (const d of disposeAll) d();
    disposeAll = [];
    fake?.remove();
    fake = undefined;
  });

  it("turns a crash, a hang and a sticky CUDA error into faults of their request, restarts the worker each time, and runs the next request normally", async () => {
    fake = new FakeGpu();
    const gpu = fake;
    // The watchdog: long enough for any request of the fake at this size, short enough for the hang.
    const w = new GpuWorker("Tesla T4", gpu.options({ requestTimeoutSec: 3 }));
    disposeAll.push(() => w.dispose());

    gpu.mode = "crash";
    const crash = await w.numerics(request());
    expect(crash).toMatchObject({ passed: false, backend: "gpu", device: "Tesla T4", size: N, rounds: [] });
    expect(crash.fault).toMatchObject({ kind: "crash" });
    expect(crash.error).toMatch(/^the GPU worker process died while running your kernel \(the child process was killed by SIGSEGV/);

    gpu.mode = "hang";
    const hang = await w.numerics(request());
    expect(hang.fault).toEqual({ kind: "timeout", seconds: 3 });
    expect(hang.error).toBe("your kernel did not finish within 3 s on the GPU and was stopped (an endless loop, or far too much work)");
    // The hung process is killed and reaped while the worker goes on.
    expect(await lingering(gpu.pids().slice(0, 2))).toEqual([]);

    // A sticky CUDA error, with a second request waiting behind it: that one runs on the replacement.
    gpu.modes("sticky", "ok");
    const [sticky, waiting] = await Promise.all([w.numerics(request()), w.numerics(request())]);
    expect(sticky).toMatchObject({ passed: false, rounds: [] });
    expect(sticky.fault).toMatchObject({ kind: "cuda-error", code: "CUDA_ERROR_ILLEGAL_ADDRESS", call: "cuCtxSynchronize", stage: "running the kernels" });
    expect(sticky.error).toBe("your kernel accessed memory out of bounds on the GPU (CUDA_ERROR_ILLEGAL_ADDRESS in gemm_relu_add_kernel)");
    // The faulted process would fail every later request (its "context" is poisoned): the fresh one computes.
    expect(waiting).toMatchObject({ passed: true, size: N });
    expect(waiting.rounds[0]).toMatchObject({ seed: 3, mismatches: 0 });
    await expect(w.time(naive(), TIMING, DEFAULT_ASSIGNMENT)).resolves.toMatchObject({ meanMs: 1, repeats: 2 });

    expect(w.workersStarted).toBe(4);
    expect(gpu.pids()).toHaveLength(4);
    // The worker knows its processes (those that answered its ping): the same four.
    expect(w.workerPids).toEqual(gpu.pids());
    w.dispose();
    expect(await lingering(gpu.pids())).toEqual([]);
    // Disposed: a request says so instead of starting a worker.
    expect((await w.numerics(request())).error).toBe("the GPU worker was disposed");
  });

  it("a worker that cannot start is the grader's error, not a fault of the submission's kernel", async () => {
    fake = new FakeGpu();
    const w = new GpuWorker("Tesla T4", { ...fake.options(), backendModule: join(fake.dir, "no-such-backend.mjs") });
    disposeAll.push(() => w.dispose());
    const outcome = await w.numerics(request());
    expect(outcome.fault).toBeUndefined();
    expect(outcome.error).toMatch(/^the GPU worker could not start: the child process exited with code 1; its last output: .*no-such-backend\.mjs/s);
  });

  it("a worker process does not outlive a grader that dies without disposing it", async () => {
    fake = new FakeGpu();
    const grader = await execa(process.execPath, ["--conditions=@tessera/source", DYING_GRADER_BUNDLE], {
      env: { TESSERA_FAKE_GPU_DIR: fake.dir },
      reject: false,
    });
    expect(grader.signal).toBe("SIGKILL");
    const { pids, passed } = JSON.parse(grader.stdout.trim().split("\n").at(-1) ?? "{}") as { pids: number[]; passed: boolean };
    expect(passed).toBe(true);
    expect(pids).toEqual(fake.pids());
    expect(await lingering(pids)).toEqual([]);
  });

  it("hands out one worker per lease: a second grading waits for the first to give its lease back", async () => {
    fake = new FakeGpu();
    fake.mode = "ok";
    const pool = new GpuWorkerPool("Tesla T4", { ...fake.options(), size: 1 });
    disposeAll.push(() => pool.dispose());
    const first = await pool.lease();
    let secondArrived = false;
    const second = pool.lease().then((lease) => {
      secondArrived = true;
      return lease;
    });
    expect(await first.numerics(request())).toMatchObject({ passed: true });
    expect(secondArrived).toBe(false);
    first.dispose();
    const lease = await second;
    expect(await lease.numerics(request())).toMatchObject({ passed: true });
    // The same worker process served both gradings.
    expect(pool.workersStarted).toBe(1);
    await expect(first.numerics(request())).rejects.toThrow("GpuBackend.numerics: the GPU lease was given back");
    lease.dispose();
    pool.dispose();
    await expect(pool.lease()).rejects.toThrow("the pool was disposed");
    expect(await lingering(fake.pids())).toEqual([]);
  });
});
