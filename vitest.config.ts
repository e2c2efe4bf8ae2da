import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { DurationSequencer } from "./scripts/test-order/duration-sequencer.js";

// Workspace packages export their TypeScript sources under the
// "@tessera/source" condition, so tests never need a prior build.
const conditions = ["@tessera/source", "import", "module", "node", "default"];

const TESTS = ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "assignments/*/test/**/*.test.ts", "scripts/**/*.test.ts"];

// `pnpm test` runs the projects "quick" and "isolated", `pnpm test:slow` the projects "slow" and "slow-isolated": the
// files listed here. `.ci/run` runs both, so every test runs in CI. A file belongs here when it is
// an integration run of tens of seconds or more — whole gradings, tuning runs, external compilers
// (nvcc, tsc), spawned command lines, big simulations — and `pnpm test` should stay a few minutes
// on two cores. `pnpm vitest run FILE` finds a file in whichever project holds it.
const SLOW_TESTS = [
  // WGSL through Dawn on Mesa's llvmpipe: the gemm schedules (llvmpipe compiles the unrolled kernels
  // for seconds) and the d2l operators. Dawn's native code also writes warnings about the adapter's
  // limits straight to stderr, which no test can capture: `pnpm test` stays quiet without them.
  "packages/webgpu/test/wgsl-gemm.test.ts",
  "packages/webgpu/test/wgsl-d2l.test.ts",
  // The Metal golden files through g++ against a stand-in <metal_stdlib> (about 10 s of parsing).
  "packages/codegen/test/metal/metal-cxx.test.ts",
  // Whole gradings of submissions (sandbox, checks, simulated numerics), in process or through the CLI.
  "apps/autograder/test/grade-submissions.test.ts",
  "apps/autograder/test/grade-cli.test.ts",
  "apps/autograder/test/mutations.test.ts",
  "apps/autograder/test/spellings.test.ts",
  "apps/autograder/test/no-solution-grader.test.ts",
  "apps/autograder/test/grade-gpu-path.test.ts",
  "apps/autograder/test/grade-gpu-fault.test.ts",
  "apps/autograder/test/gpu-worker.test.ts",
  "apps/autograder/test/batch-scale.test.ts",
  "apps/autograder/test/queue-workers.test.ts",
  "apps/autograder/test/queue-bench-command.test.ts",
  "apps/autograder/test/simulator-numerics.test.ts",
  // The sandbox's isolation from the queue (a whole sandbox run), and the Redis bundle (apt-get download, xz).
  "apps/autograder/test/sandbox-no-redis.test.ts",
  // The sandbox's host processes kept per prepared file: state, limits and cancelling run by run.
  "apps/autograder/test/sandbox-hosts.test.ts",
  "apps/autograder/test/bundle-redis.test.ts",
  "assignments/gemm-relu-add/test/assignment-scripts.test.ts",
  // Tuning runs, and search quality measured over seeds.
  "apps/autograder/test/tune.test.ts",
  "apps/autograder/test/tune-gpu.test.ts",
  "apps/cli/test/tune-cpu.test.ts",
  // Worker processes: tessera tune --gpus (two tuning runs), a worker thread held longer than its lock.
  "apps/cli/test/tune-gpus.test.ts",
  "packages/queue/test/lock-keeper.test.ts",
  "packages/queue/test/stop-on-signals.test.ts",
  "packages/meta-schedule/test/cpu/cpu-tuning.test.ts",
  // Every d2l CPU operator tuned for the C target (gcc, the runner child): minutes on two cores.
  "packages/meta-schedule/test/cpu/cpu-operators-tuning.test.ts",
  "packages/meta-schedule/test/tune/recorded-hardware.test.ts",
  "packages/meta-schedule/test/search/search-quality.test.ts",
  "packages/meta-schedule/test/search/replay-cache-search.test.ts",
  "packages/meta-schedule/test/space-gpu/odd-shapes.property.test.ts",
  "packages/meta-schedule/test/space-gpu/tensor-core.property.test.ts",
  "packages/meta-schedule/test/space-gpu/wgmma-space.property.test.ts",
  "packages/meta-schedule/test/space-gpu/split-k.property.test.ts",
  "packages/meta-schedule/test/space-gpu/half-output-gemm-nvcc.test.ts",
  "packages/meta-schedule/test/space-gpu/fp32-precision-nvcc.test.ts",
  "packages/meta-schedule/test/space-gpu/padded-operand-slices.test.ts",
  "packages/meta-schedule/test/database/similar-records.test.ts",
  "packages/meta-schedule/test/database/prior-seeds.test.ts",
  "packages/meta-schedule/test/search/parallel-search.test.ts",
  "packages/meta-schedule/test/cost-model/kernel-summary-ranking.test.ts",
  "packages/meta-schedule/test/cost-model/h100-ranking.test.ts",
  // External compilers and spawned command lines: nvcc, tsc, the bench scripts under tsx, python3.
  "packages/codegen/test/cuda/corpus-nvcc.test.ts",
  "packages/codegen/test/cuda/async-copy-nvcc.test.ts",
  "packages/codegen/test/cuda/mbarrier-nvcc.test.ts",
  "packages/codegen/test/cuda/half-types-nvcc.test.ts",
  "packages/codegen/test/tensor-core/wmma-nvcc.test.ts",
  "packages/codegen/test/tensor-core/mma-nvcc.test.ts",
  "packages/runtime/test/codegen-nvcc.test.ts",
  "packages/schedule/test/trace-typecheck.test.ts",
  "assignments/gemm-relu-add/test/starter.test.ts",
  "packages/meta-schedule/test/tune/bench-command-line.test.ts",
  "packages/runtime/test/tc-torch-script.test.ts",
  // Big simulations and executor runs: the fast schedule at 256³ and its random configurations at
  // 64³, 300 random GPU schedules, the largest corpus entries through the front passes.
  "packages/simulator/test/fast-gemm.test.ts",
  "packages/simulator/test/fast-gemm.property.test.ts",
  "packages/simulator/test/fast-gemm-async.property.test.ts",
  "packages/simulator/test/wmma/wmma-gemm.property.test.ts",
  "packages/simulator/test/mma/mma-gemm.property.test.ts",
  "packages/simulator/test/mma/tf32-gemm.property.test.ts",
  "packages/simulator/test/mma/tf32-gemm.test.ts",
  "packages/simulator/test/mma/tf32x3-gemm.test.ts",
  "packages/simulator/test/mma/mma-gemm-relu-add.test.ts",
  "packages/simulator/test/mma/wgmma-gemm.test.ts",
  "packages/simulator/test/mma/wgmma-tf32-gemm-large.test.ts",
  "packages/simulator/test/mma/wgmma-tf32x3-gemm-large.test.ts",
  "packages/simulator/test/mma/wgmma-tma-tf32-gemm.test.ts",
  "packages/simulator/test/mma/wgmma-tma-schedule.test.ts",
  "packages/corpus/test/tf32x3-error.test.ts",
  "packages/simulator/test/register-stage-layout.property.test.ts",
  "packages/simulator/test/random-gpu-schedules.property.test.ts",
  "packages/simulator/test/padded-tiles.property.test.ts",
  // Each README's example run with tsx in a scratch project (a process per block).
  "scripts/readme-examples.test.ts",
];

// Slow files that run in a process of their own ("slow-isolated", also run by `pnpm test:slow`): the
// executor's largest runs. On Node 24 (not 20) they ran 2–4× slower in a worker that had run other
// files first (execution-large: 21 s alone, 48 s after two grading files, 86–119 s in CI's suite,
// against 29 s on Node 20); the cause, retained heap or type feedback, is not found
// (docs/benchmarks/ci-time.md, session 10).
const SLOW_ISOLATED_TESTS = [
  "packages/codegen/test/passes-front/execution-large.test.ts",
  // machineProfile() is memoised per process: the test's cached probe must be the first one asked
  // for (in a shared worker a file run before it had already probed the machine).
  "packages/meta-schedule/test/cpu/tuned-parallel-payoff.test.ts",
];

// "quick" runs its files in shared workers (isolate: false: the workspace's modules are imported
// once per worker, not once per file, which halves the run). A file that mocks modules (vi.mock)
// or needs module state no other file has touched goes here, and runs in "isolated" as before.
const ISOLATED_TESTS = [
  "apps/cli/test/simulate.test.ts", // vi.mock("@tessera/codegen")
  "apps/autograder/test/sandbox-runtime.test.ts", // the grader finds its sandbox runtime once per process
  // The bench's CPU clock is the process's CPU time: in a shared worker, threads that files run
  // before it left busy (GC, replay workers winding down) counted 32 ms in a 40 ms wait (CI-like run).
  "packages/ir/test/bench/clock.test.ts",
];

// The schedule explorer in headless Chromium (`pnpm test:browser`, its own step in .ci/run): it
// builds the app with Vite first and needs Debian's chromium.
const BROWSER_TESTS = ["apps/explorer/test/explorer.browser.test.ts"];

for (const file of [...SLOW_TESTS, ...SLOW_ISOLATED_TESTS, ...ISOLATED_TESTS, ...BROWSER_TESTS]) {
  if (!existsSync(new URL(file, import.meta.url))) throw new Error(`vitest.config.ts names ${file}, which does not exist`);
}

const exclude = ["**/node_modules/**", "**/dist/**"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@tessera/source"] } },
  test: {
    exclude,
    pool: "forks",
    maxWorkers: 2,
    // Longest files first, from durations recorded on an idle machine: a fresh clone has no vitest
    // cache of the last run, and a long file started last would leave a worker idle.
    sequence: { sequencer: DurationSequencer },
    // One temporary folder for the run, removed at its end (temp-root.mjs); the meta-schedule's
    // workers start from a prebuilt bundle rather than through tsx (global-setup.mjs).
    globalSetup: ["scripts/test-workers/temp-root.mjs", "scripts/test-workers/global-setup.mjs"],
    // TESSERA_TEST_CPU_LOG=FILE: each test file's CPU seconds appended to FILE (scripts/test-order/cpu-per-file.ts).
    // TESSERA_TEST_CPU_PROF=DIR: a CPU profile of each test file written to DIR (scripts/profile/cpu-profile-per-file.ts).
    setupFiles: [
      ...(process.env.TESSERA_TEST_CPU_LOG ? ["scripts/test-order/cpu-per-file.ts"] : []),
      ...(process.env.TESSERA_TEST_CPU_PROF ? ["scripts/profile/cpu-profile-per-file.ts"] : []),
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "quick",
          include: TESTS,
          exclude: [...exclude, ...SLOW_TESTS, ...SLOW_ISOLATED_TESTS, ...ISOLATED_TESTS, ...BROWSER_TESTS],
          isolate: false,
        },
      },
      { extends: true, test: { name: "isolated", include: ISOLATED_TESTS } },
      // Whole gradings and tuning runs take 10–40 s alone; on a loaded machine (load 13–22) single
      // tests of tune, grade-cli and queue-workers passed 60 s, and passed alone right after.
      { extends: true, test: { name: "slow", include: SLOW_TESTS, isolate: false, testTimeout: 180_000, hookTimeout: 180_000 } },
      { extends: true, test: { name: "slow-isolated", include: SLOW_ISOLATED_TESTS } },
      { extends: true, test: { name: "browser", include: BROWSER_TESTS } },
    ],
  },
});
