/**
 * A GPU fault while grading, without a GPU: the fake GPU backend (test/support) reports a sticky
 * CUDA_ERROR_ILLEGAL_ADDRESS for a submission whose kernel reads far out of bounds (the course's
 * workload with one read shifted, test/support/workload-variants.ts). The fault becomes that
 * submission's numerics feedback, in the student's terms and with the simulator's finding at the
 * reduced size; the next submission, graded with the same GPU, gets full marks.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignmentBinding } from "../src/assignment.js";
import { gradeSubmission } from "../src/grade/grade-submission.js";
import { GpuWorker } from "../src/gpu/index.js";
import { type Manifest, loadManifest } from "../src/manifest/index.js";
import { toGradescope } from "../src/report/to-gradescope.js";
import { FakeGpu } from "./support/fake-gpu.js";
import { lingering } from "./support/processes.js";
import { outOfBoundsBinding } from "./support/workload-variants.js";

const binding = assignmentBinding("gemm-relu-add");
const solutionDir = join(binding.root, "solution");
let manifest: Manifest;
let fake: FakeGpu;
let gpu: GpuWorker;

beforeAll(() => {
  manifest = loadManifest(binding.manifestPath);
  fake = new FakeGpu();
  gpu = new GpuWorker("Tesla T4", fake.options());
});

afterAll(() => {
  gpu.dispose();
  fake.remove();
});

describe("grading through the isolated GPU worker (fake GPU)", () => {
  it("reports a faulting submission's fault with the simulator's finding, then grades the next submission normally", async () => {
    fake.mode = "sticky";
    const faulty = await gradeSubmission({ submissionDir: solutionDir, binding: outOfBoundsBinding(), manifest, gpu, numerics: { rounds: 1 } });
    const manual = faulty.numerics.manual;
    expect(manual?.fault).toMatchObject({ kind: "cuda-error", code: "CUDA_ERROR_ILLEGAL_ADDRESS" });
    expect(manual?.fault?.simulatorFinding).toMatch(
      /^the CPU simulator, running the same schedule at 256×256×256, reports: .*out-of-bounds load from buffer C in kernel \S+, block \(\d+, \d+, \d+\), thread \(\d+, \d+, \d+\)/,
    );
    // The numerics check's feedback (what Gradescope shows) says it in the student's terms.
    const numericsCheck = faulty.tasks.flatMap((t) => t.checks).find((c) => c.check.kind === "numerics" && c.check.schedule === "manual");
    expect(numericsCheck?.status).toBe("failed");
    expect(numericsCheck?.feedback).toMatch(
      /^your kernel accessed memory out of bounds on the GPU \(CUDA_ERROR_ILLEGAL_ADDRESS in gemm_relu_add_kernel\); the CPU simulator, running the same schedule at 256×256×256, reports: /,
    );
    const results = toGradescope(faulty);
    expect(JSON.stringify(results)).toContain("your kernel accessed memory out of bounds on the GPU");
    // Part 2's tuned schedule faults the same way; the reference timings in between ran on a fresh worker.
    expect(faulty.numerics.tuned?.fault?.kind).toBe("cuda-error");
    expect(faulty.timings["reference-manual"]).toMatchObject({ meanMs: 1 });
    expect(faulty.score).toBeLessThan(faulty.maxScore);

    fake.mode = "ok";
    const next = await gradeSubmission({ submissionDir: solutionDir, binding, manifest, gpu, numerics: { rounds: 1 } });
    expect(next.numerics.manual).toMatchObject({ passed: true });
    expect(next.score).toBe(100);
    expect(next.maxScore).toBe(100);
    // One worker for the first submission's manual numerics, one after that fault, one after the tuned one's.
    expect(gpu.workersStarted).toBe(3);

    gpu.dispose();
    expect(await lingering(fake.pids())).toEqual([]);
  });
});
