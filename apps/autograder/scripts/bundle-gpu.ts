/**
 * `pnpm bundle:gpu`: a self-contained folder (default .device-bundle/) to run Tessera on a GPU
 * machine that has no Node.js install and builds nothing:
 *   <entry>.mjs          one esbuild bundle per entry below (an entry whose source is missing is
 *                        skipped with a warning)
 *   tessera_cuda.node    the native addon (found at run time beside the bundle)
 *   sandbox-runtime.cjs  the autograder's sandbox runtime, prebuilt (found beside the grader)
 *   sandbox-host.cjs     the sandbox's host program (runs a submission in an isolate), prebuilt
 *   assignment/          the assignment (student files, solution, manifest), TESSERA_ASSIGNMENT_ROOT by default
 *   node_modules/        esbuild and its platform binary (the grader bundles submissions at
 *                        grading time, so `esbuild` is external in the entries) and isolated-vm
 *                        (its package.json and stripped addon, under the alias the grader looks
 *                        for on this Node: the sandbox host loads the addon)
 *                        and Dawn (npm `webgpu`: its loader and its stripped binary as
 *                        dawn.node.xz, unpacked in place by bench-wgsl on first use)
 *   vulkan/, egl/        Debian's Vulkan loader (libvulkan.so.1) and glvnd's libEGL.so.1 and
 *                        libGLdispatch.so.0, for wgsl-probe on a host that has the NVIDIA driver
 *                        but no loader (left out, with a warning, where this machine has none)
 *   node.xz              this machine's Node binary, xz-compressed (skip with --no-node)
 *   run.sh               `run.sh <entry> [args...]`: unpacks node (once) and runs an entry
 *
 * Usage: pnpm bundle:gpu [--out DIR] [--no-node]
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { findIsolatedVmAddon } from "../src/sandbox/isolated-vm.js";
import { SANDBOX_HOST_FILE, SANDBOX_RUNTIME_FILE, buildSandboxHost, buildSandboxRuntime } from "../src/sandbox/runtime-bundle.js";
import { RUN_SH } from "./bundle-run-sh.js";
import { freshNativeAddon } from "./fresh-native-addon.js";
import { CHUNK_PREFIX, graderBundleOptions } from "./grader-bundle-options.js";

// An app-level script: it bundles entries of packages and apps together (packages never import apps).
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
/** @tessera/runtime, whose native addon goes into the bundle. */
const runtimeDir = join(repoRoot, "packages", "runtime");

/** Entry points: name → TypeScript source (relative to the repository root). Add the CLI/grader here. */
const ENTRIES: ReadonlyArray<{ name: string; source: string; description: string }> = [
  { name: "gpu-selftest", source: "packages/runtime/scripts/gpu-selftest.ts", description: "runtime GPU checks (PASS/FAIL)" },
  {
    name: "bench-gpu",
    source: "packages/runtime/bench/gpu.bench.ts",
    description: "pnpm bench:gpu: build() kernels, hand-written gemm, cuBLAS; --dry-run: the same checks in the simulator; --out-dir DIR",
  },
  {
    name: "bench-wgsl",
    source: "packages/runtime/bench/wgsl.bench.ts",
    description:
      "pnpm bench:wgsl: the fast gemm schedule at 2048³ as WGSL through Dawn (Vulkan) and as CUDA in one run, checked and timed; writes wgsl-vs-cuda.{json,md} into --out-dir DIR; --backend opengles, --size N, --repeat N; --dry-run: llvmpipe at 128³",
  },
  {
    name: "wgsl-probe",
    source: "packages/runtime/bench/wgsl-gpu-probe.ts",
    description:
      "pnpm bench:wgsl-probe: tries Dawn's Vulkan backend (carried loader, NVIDIA ICD json) then its OpenGL ES backend on NVIDIA's EGL, reporting each; the first adapter runs bench-wgsl (WGSL vs CUDA); writes wgsl-gpu-probe.{json,md} into --out-dir DIR; --dry-run: then llvmpipe at 128³",
  },
  {
    name: "bench-half",
    source: "packages/runtime/bench/half-gemm.bench.ts",
    description:
      "pnpm bench:half: fp16 and bf16 gemm+ReLU+add (fp32 accumulation) on the GPU against the executor (bit for bit, ≤ 256³) and torch (two-ulp tolerance); --sizes 128,2048, --seed N, --out FILE.json; --dry-run: the simulator",
  },
  {
    name: "bench-tc",
    source: "packages/runtime/bench/tensor-core-gemm.bench.ts",
    description:
      "pnpm bench:tc: the tensor-core GEMMs on the GPU (fp16 with fp32 accumulation through WMMA and ldmatrix + mma.sync, against torch fp16 matmul = cuBLAS HGEMM; tf32 through mma.sync m16n8k8 from fp32 operands, against torch fp32 matmul with TF32 on; 3xTF32 GEMM and gemm+ReLU+add, float32-accurate, against cuBLAS SGEMM), each checked against float64 beside cuBLAS SGEMM; --sizes 2048,4096, --kernels wmma,mma,tf32,tf32x3,tf32x3_relu_add, --x3-chunk 16,32,64 (the 3xTF32 kernels once per chunk of k), --seed N, --out FILE.json; --dry-run: the simulator at 128³, bit for bit with the executor",
  },
  {
    name: "bench-mbarrier",
    source: "packages/runtime/bench/mbarrier-pipeline.bench.ts",
    description:
      "pnpm bench:mbarrier: the warp-specialised bulk-copy pipeline (mbarriers, cp.async.bulk, a producer thread and consumer warps) on the GPU per producer (a bulk-copy thread, a cp.async warp arriving with cp.async.mbarrier.arrive.noinc) and stage count, checked element for element against the executor; --producers bulk,cp.async, --stages 1,2,3,4, --tiles N, --warps N, --lanes N, --repeat N, --out FILE.json; --dry-run: the simulator (run under timeout: a wrong phase hangs)",
  },
  {
    name: "gemm-variants",
    source: "packages/runtime/bench/gemm-variants.bench.ts",
    description:
      "pnpm bench:gemm-variants: fastSchedule variants at 2048³ checked and timed against cuBLAS and torch relu(A@B)+C; --out-dir DIR, --variants FILE.json, --only a,b, --rounds R; --dry-run [--simulate N]",
  },
  {
    name: "bench-tune",
    source: "packages/meta-schedule/bench/tune.bench.ts",
    description:
      "pnpm bench:tune: the meta-schedule tuner on the GPU against torch (cuBLAS/cuDNN); --out-dir DIR, --only, --trials, --gemm-trials, --course-trials, --seeds, --workers N (search threads), --overlap",
  },
  { name: "grade", source: "apps/autograder/src/main.ts", description: "tessera-grade: the autograder (run from the repository root)" },
  {
    name: "tessera",
    source: "apps/cli/src/main.ts",
    description:
      "the tessera CLI (print, run, build, simulate, tune, worker, queue): e.g. `tessera tune FILE --target nvidia/h200 --trials N --work-dir DIR --gpus 0,1` (one measuring worker per GPU; a private redis-server from TESSERA_REDIS_SERVER, e.g. redis-server.sh)",
  },
  {
    name: "bench-tune-gpus",
    source: "apps/cli/bench/tune-gpus.bench.ts",
    description:
      "pnpm bench:tune --gpus 0,1: one seed tuned on the first GPU, then on all listed (one `tessera worker` each), against cuBLAS; --trials, --seed, --workload, --out-dir DIR; needs TESSERA_REDIS_SERVER",
  },
  // The grader's GPU worker process: found beside the entry that grades (see apps/autograder/src/gpu/worker/gpu-worker.ts).
  {
    name: "grade-gpu-worker",
    source: "apps/autograder/src/gpu/worker/gpu-worker-child.ts",
    description: "the autograder's isolated GPU worker process (started by the grader, not by hand)",
  },
  {
    name: "gpu-fault-check",
    source: "apps/autograder/scripts/gpu-fault-check.ts",
    description:
      "GPU fault isolation: grades an out-of-bounds submission, stops an endless kernel, then grades the solution (100); writes gpu-fault-check.{md,json} into --out-dir; exit 1 on FAIL",
  },
  // Found beside the grader by apps/autograder/src/grade/rounds/rounds-helper.ts (the simulator's checks on a second core).
  {
    name: "grade-rounds-worker",
    source: "apps/autograder/src/grade/rounds/rounds-worker.ts",
    description: "the autograder's simulator rounds thread (started by the grader, not by hand)",
  },
  // Found beside the grader by apps/autograder/src/batch/submission-grader.ts (batch --jobs N without a GPU).
  {
    name: "grade-batch-worker",
    source: "apps/autograder/src/batch/grade-worker.ts",
    description: "tessera-grade batch's grading thread (started by the grader, not by hand)",
  },
  {
    name: "sandbox-smoke",
    source: "apps/autograder/scripts/sandbox-smoke.ts",
    description: "autograder sandbox check: runs task 1 of the instructor solution in the sandbox (PASS/FAIL); [repoRoot], default the current directory",
  },
  // Workers of @tessera/meta-schedule: found beside the entry that starts them (see its isolation/entry-point.ts).
  {
    name: "ms-build-worker",
    source: "packages/meta-schedule/src/builder/build-worker.ts",
    description: "meta-schedule LocalBuilder's worker thread (started by the tuner, not by hand)",
  },
  {
    name: "ms-replay-worker",
    source: "packages/meta-schedule/src/search/replay-worker.ts",
    description: "meta-schedule search's worker thread: replays, postprocesses and lowers candidates (started by the tuner, not by hand)",
  },
  {
    name: "ms-runner-child",
    source: "packages/meta-schedule/src/runner/runner-child.ts",
    description: "meta-schedule LocalRunner's measuring child process (started by the tuner, not by hand)",
  },
  {
    name: "ms-gpu-space-check",
    source: "packages/meta-schedule/test/builder-runner/gpu-space-check.ts",
    description:
      "the tensor-core design spaces' programs of the fp16 GEMMs at 256³ (float32 and float16 C) built and run on the GPU, each checked against the CPU executor (--samples N per space)",
  },
  {
    name: "ms-gpu-smoke",
    source: "packages/meta-schedule/test/builder-runner/gpu-smoke.ts",
    description:
      "meta-schedule LocalBuilder (NVRTC) + LocalRunner on the GPU: the 2048³ gemms timed and cross-checked, a faulting and an endless candidate isolated (JSON report)",
  },
  {
    name: "queue-bench",
    source: "apps/autograder/scripts/queue-bench.ts",
    description:
      "pnpm bench:queue: batch grading through the job queue, 1 worker process against several sharing the GPU; needs a redis-server (--redis-server PATH or TESSERA_REDIS_SERVER); --submissions N, --workers 1,2,4, --out-dir DIR",
  },
  {
    name: "grade-verdicts",
    source: "apps/autograder/scripts/grade-verdicts.ts",
    description:
      "grade-verdicts grade DIR --out FILE.json: grades every submission folder of DIR (GPU) and records each check's verdict, to compare with a run without GPU (grade-verdicts compare)",
  },
  {
    name: "grade-report",
    source: "apps/autograder/scripts/gpu-grade-report.ts",
    description: "grades the solution and the starter on the GPU, times torch/cuBLAS; writes autograder-gpu.{md,json} into --out-dir (default docs/benchmarks)",
  },
];

/**
 * Copies the installed esbuild (as the autograder resolves it) into `outDir/node_modules`: of the
 * JS package only what `import("esbuild")` loads, and the platform package with its binary.
 * esbuild's lib/main.js finds the binary by resolving `@esbuild/<platform>-<arch>` from itself.
 */
/**
 * Copies Dawn for Node (the npm package `webgpu`, which @tessera/webgpu/node loads) into
 * `outDir/node_modules/webgpu`: its loader and this platform's binary, stripped and
 * xz-compressed (21 MB → about 4.5 MB).
 */
function copyDawn(outDir: string): void {
  const fromWebgpu = createRequire(join(repoRoot, "packages", "webgpu", "package.json"));
  const source = dirname(fromWebgpu.resolve("webgpu/package.json"));
  const target = join(outDir, "node_modules", "webgpu");
  const platform = `${process.platform}-${process.arch}`;
  rmSync(target, { recursive: true, force: true });
  mkdirSync(join(target, "dist", platform), { recursive: true });
  for (const file of ["package.json", "index.js", "LICENSE"]) if (existsSync(join(source, file))) copyFileSync(join(source, file), join(target, file));
  const binary = join(target, "dist", platform, "dawn.node");
  execFileSync("strip", ["-o", binary, join(source, "dist", platform, "dawn.node")]);
  execFileSync("xz", ["-T0", "-6", binary]);
}

const SYSTEM_LIBS = "/usr/lib/x86_64-linux-gnu";

/**
 * Copies the GL/Vulkan loaders wgsl-probe puts on LD_LIBRARY_PATH where the GPU host lacks them:
 * `vulkan/libvulkan.so.1` (Debian's libvulkan1: installed here, else unpacked from apt's cache)
 * and `egl/` (glvnd's libEGL.so.1 and libGLdispatch.so.0). Returns what it left out, and why.
 */
function copyGlLoaders(outDir: string): string[] {
  const missing: string[] = [];
  const vulkanDir = join(outDir, "vulkan");
  rmSync(vulkanDir, { recursive: true, force: true });
  mkdirSync(vulkanDir, { recursive: true });
  let loader = join(SYSTEM_LIBS, "libvulkan.so.1");
  if (!existsSync(loader)) {
    const cache = "/var/cache/apt/archives";
    const deb = existsSync(cache) ? readdirSync(cache).find((f) => /^libvulkan1_.*_amd64\.deb$/.test(f)) : undefined;
    if (deb !== undefined) {
      const unpacked = join(outDir, ".libvulkan1");
      execFileSync("dpkg-deb", ["-x", join(cache, deb), unpacked]);
      loader = join(unpacked, SYSTEM_LIBS.slice(1), "libvulkan.so.1");
    }
  }
  if (existsSync(loader)) cpSync(loader, join(vulkanDir, "libvulkan.so.1"), { dereference: true });
  else missing.push("vulkan/libvulkan.so.1 (no libvulkan1 installed or in apt's cache)");
  rmSync(join(outDir, ".libvulkan1"), { recursive: true, force: true });
  const eglDir = join(outDir, "egl");
  rmSync(eglDir, { recursive: true, force: true });
  mkdirSync(eglDir, { recursive: true });
  for (const lib of ["libEGL.so.1", "libGLdispatch.so.0"]) {
    if (existsSync(join(SYSTEM_LIBS, lib))) cpSync(join(SYSTEM_LIBS, lib), join(eglDir, lib), { dereference: true });
    else missing.push(`egl/${lib} (not installed here)`);
  }
  return missing;
}

function copyEsbuild(outDir: string): void {
  const fromAutograder = createRequire(join(repoRoot, "apps", "autograder", "package.json"));
  const jsPackage = dirname(fromAutograder.resolve("esbuild/package.json"));
  const platformName = `@esbuild/${process.platform}-${process.arch}`;
  const platformPackage = dirname(createRequire(join(jsPackage, "package.json")).resolve(`${platformName}/package.json`));
  const modules = join(outDir, "node_modules");
  rmSync(modules, { recursive: true, force: true });
  for (const file of ["package.json", "LICENSE.md", join("lib", "main.js")]) {
    mkdirSync(dirname(join(modules, "esbuild", file)), { recursive: true });
    copyFileSync(join(jsPackage, file), join(modules, "esbuild", file));
  }
  cpSync(platformPackage, join(modules, platformName), { recursive: true, dereference: true });
}

/**
 * Copies isolated-vm (the one the autograder loads on this Node, see
 * ../src/sandbox/isolated-vm.ts) into `outDir/node_modules/<its alias>`: its package.json and its
 * addon, stripped of symbols (25 MB → about 1 MB), as out/isolated_vm.node (where the grader looks
 * first, whatever the version). The addon is built for this machine's Node ABI, which is the Node
 * the bundle carries.
 */
function copyIsolatedVm(outDir: string): void {
  const { packageName, dir: source, addon } = findIsolatedVmAddon(join(repoRoot, "apps", "autograder", "package.json"));
  const target = join(outDir, "node_modules", packageName);
  mkdirSync(join(target, "out"), { recursive: true });
  for (const file of ["package.json", "LICENSE"]) copyFileSync(join(source, file), join(target, file));
  execFileSync("strip", ["--strip-unneeded", "-o", join(target, "out", "isolated_vm.node"), addon]);
}

/**
 * Copies the assignment the grader grades (student files, solution, grading manifest, handout)
 * into `outDir/assignment`, which run.sh names in TESSERA_ASSIGNMENT_ROOT: the bundle grades the
 * bundled assignment wherever it is unpacked. Installed, built and test files stay behind.
 */
function copyAssignment(outDir: string): void {
  const source = join(repoRoot, "assignments", "gemm-relu-add");
  const target = join(outDir, "assignment");
  const left = new Set(["node_modules", "dist", ".turbo", "test", "handin.zip", "results.json"]);
  rmSync(target, { recursive: true, force: true });
  cpSync(source, target, { recursive: true, filter: (from) => !left.has(relative(source, from).split(/[\\/]/)[0] ?? "") });
}

/** Bytes under `path` (a file or a folder). */
function sizeOf(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const outAt = args.indexOf("--out");
  const outDir = resolve(repoRoot, outAt >= 0 ? (args[outAt + 1] ?? ".device-bundle") : ".device-bundle");
  const withNode = !args.includes("--no-node");
  mkdirSync(outDir, { recursive: true });

  copyFileSync(freshNativeAddon(runtimeDir), join(outDir, "tessera_cuda.node"));
  copyEsbuild(outDir);
  copyIsolatedVm(outDir);
  copyDawn(outDir);
  for (const left of copyGlLoaders(outDir)) console.warn(`bundle:gpu: left out ${left}; wgsl-probe will say so`);
  copyAssignment(outDir);
  writeFileSync(join(outDir, SANDBOX_RUNTIME_FILE), await buildSandboxRuntime());
  writeFileSync(join(outDir, SANDBOX_HOST_FILE), await buildSandboxHost());

  const entries = ENTRIES.filter((e) => {
    if (existsSync(join(repoRoot, e.source))) return true;
    console.warn(`bundle:gpu: skipping the entry ${e.name}: ${e.source} does not exist`);
    rmSync(join(outDir, `${e.name}.mjs`), { force: true });
    return false;
  });
  // One build for every entry, their shared code in chunks beside them (the entries share most of
  // the compiler: built apart they were 25 MB, over what a device call may carry with the node binary).
  // Chunks sit in the bundle's root so that import.meta.url-relative lookups find the same files.
  for (const f of readdirSync(outDir)) if (f.startsWith(CHUNK_PREFIX)) rmSync(join(outDir, f));
  const options = graderBundleOptions(Object.fromEntries(entries.map((e) => [e.name, join(repoRoot, e.source)])), outDir);
  // Dawn loads its native binary from beside its own index.js: it stays a package in node_modules.
  await build({ ...options, external: [...(options.external ?? []), "webgpu"], sourcemap: false });
  const chunks = readdirSync(outDir).filter((f) => f.startsWith(CHUNK_PREFIX));

  if (withNode) {
    const versionFile = join(outDir, "node.version");
    const nodeXz = join(outDir, "node.xz");
    const have = existsSync(versionFile) ? readFileSync(versionFile, "utf8").trim() : "";
    if (!existsSync(nodeXz) || have !== `${process.version}-${process.arch}`) {
      console.log(`compressing ${process.execPath} → ${relative(repoRoot, nodeXz)} ...`);
      execFileSync("bash", ["-c", `xz -T0 -6 -c "${process.execPath}" > "${nodeXz}.tmp" && mv "${nodeXz}.tmp" "${nodeXz}"`], {
        stdio: "inherit",
      });
      writeFileSync(versionFile, `${process.version}-${process.arch}\n`);
    }
  } else {
    rmSync(join(outDir, "node.xz"), { force: true });
    rmSync(join(outDir, "node.version"), { force: true });
  }

  writeFileSync(join(outDir, "run.sh"), RUN_SH);
  chmodSync(join(outDir, "run.sh"), 0o755);
  writeFileSync(
    join(outDir, "manifest.json"),
    JSON.stringify({ node: process.version, entries: entries.map(({ name, description }) => ({ name, description })) }, null, 2) + "\n",
  );
  const files = [
    "tessera_cuda.node",
    SANDBOX_RUNTIME_FILE,
    SANDBOX_HOST_FILE,
    "node_modules",
    "assignment",
    "vulkan",
    "egl",
    "run.sh",
    "manifest.json",
    ...entries.map((e) => `${e.name}.mjs`),
    ...chunks,
    ...(withNode ? ["node.xz", "node.version"] : []),
  ];
  const total = files.reduce((sum, f) => sum + sizeOf(join(outDir, f)), 0);
  console.log(`bundle ready: ${relative(repoRoot, outDir)}/ (${(total / 2 ** 20).toFixed(1)} MiB): ${entries.map((e) => e.name).join(", ")}`);
  console.log(`run with: ${relative(repoRoot, outDir)}/run.sh <entry> [args...]`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
