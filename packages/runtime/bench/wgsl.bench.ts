/**
 * `pnpm bench:wgsl`: the course's fast gemm+ReLU+add schedule at 2048³ as WGSL through Dawn
 * (`@tessera/webgpu/node`, Vulkan backend) and as CUDA through this runtime, in the same run:
 * each checked (WGSL against CUDA at 2048³, against the JS executor at ≤ 256³) and timed; writes
 * the throughput ratio WGSL / CUDA to `<out-dir>/wgsl-vs-cuda.{json,md}`.
 *
 * `--dry-run`: Dawn's OpenGL ES backend (Mesa's llvmpipe on a machine without a GPU), 128³, CUDA
 * only where a device exists; writes `wgsl-vs-cuda-dry-run.{json,md}`. Other options: `--size N`,
 * `--backend vulkan|opengles`, `--repeat N`, `--out-dir DIR` (default docs/benchmarks), `--dawn-features
 * disable_robustness` (Dawn toggles for the WGSL side, named in the report and the file name).
 * Where Dawn finds no adapter (no Vulkan driver on the host), the report says so instead of a ratio.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { FAST_PARAMS, SMALL_FAST_PARAMS, fastSchedule } from "@tessera/corpus";
import { webGpuTargetFromLimits } from "@tessera/codegen";
import { compilePrimFunc, gemmReluAdd, randomArgs } from "@tessera/ir";
import { build as buildWgsl, loadModule } from "@tessera/webgpu";
import { type DawnBackend, requestNodeDevice } from "@tessera/webgpu/node";
import { NDArray, build, cuda } from "../src/index.js";

interface Options {
  readonly dryRun: boolean;
  readonly size: number;
  readonly backend: DawnBackend;
  readonly repeat: number;
  readonly outDir: string;
  /** Dawn toggles for the WGSL side (`--dawn-features a,b`), named in the report. */
  readonly dawnFeatures: readonly string[];
}

function parseOptions(argv: readonly string[]): Options {
  const at = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const dryRun = argv.includes("--dry-run");
  const size = Number(at("--size") ?? (dryRun ? "128" : "2048"));
  if (!Number.isInteger(size) || size < 128 || size % 128 !== 0) throw new Error(`--size: a multiple of 128 expected, got ${at("--size")}`);
  const backend = (at("--backend") ?? (dryRun ? "opengles" : "vulkan")) as DawnBackend;
  if (!["vulkan", "opengles", "opengl", "null"].includes(backend)) throw new Error(`--backend: vulkan or opengles expected, got ${backend}`);
  const repeat = Number(at("--repeat") ?? (dryRun ? "3" : "20"));
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`--repeat: a positive integer expected, got ${at("--repeat")}`);
  const dawnFeatures = (at("--dawn-features") ?? "").split(",").filter((f) => f !== "");
  if (dawnFeatures.some((f) => !/^[a-z0-9_]+$/.test(f)))
    throw new Error(`--dawn-features: comma-separated Dawn toggle names expected, got ${at("--dawn-features")}`);
  return { dryRun, size, backend, repeat, outDir: resolve(at("--out-dir") ?? join("docs", "benchmarks")), dawnFeatures };
}

/**
 * In the device bundle Dawn's binary travels xz-compressed (`dawn.node.xz` beside where the npm
 * package `webgpu` loads `dawn.node` from): unpack it once.
 */
function unpackDawn(): void {
  let packageDir: string;
  try {
    packageDir = dirname(createRequire(import.meta.url).resolve("webgpu/package.json"));
  } catch {
    return;
  }
  const binary = join(packageDir, "dist", `${process.platform}-${process.arch}`, "dawn.node");
  if (existsSync(binary) || !existsSync(`${binary}.xz`)) return;
  execFileSync("bash", ["-c", `xz -dc "${binary}.xz" > "${binary}.tmp.${process.pid}"`]);
  renameSync(`${binary}.tmp.${process.pid}`, binary);
}

const schedule = (n: number) => fastSchedule(n, n === 128 ? SMALL_FAST_PARAMS : FAST_PARAMS);

interface Side {
  readonly device: string;
  readonly medianMs: number;
  readonly gflops: number;
  readonly timing: string;
}

async function runWgsl(o: Options, inputs: Float32Array[]): Promise<{ side: Side; output: Float32Array } | { unavailable: string }> {
  unpackDawn();
  const got = await requestNodeDevice({ backend: o.backend, dawnFeatures: o.dawnFeatures });
  if ("unavailable" in got) return got;
  const target = webGpuTargetFromLimits(got.device.limits, got.device.features.has("shader-f16"));
  const module = await loadModule(got.device, buildWgsl(schedule(o.size), target));
  const args = inputs.map((a) => a.slice());
  await module.run(args);
  const t = await module.time(args, { warmup: 2, repeat: o.repeat, warmupMs: o.dryRun ? 0 : 1000 });
  const flops = 2 * o.size ** 3;
  return {
    side: {
      device: `${got.description} (Dawn ${o.backend}${o.dawnFeatures.length > 0 ? `, ${o.dawnFeatures.join(", ")}` : ""})`,
      medianMs: t.medianMs,
      gflops: flops / (t.medianMs * 1e6),
      timing: t.method,
    },
    output: args[3]!,
  };
}

async function runCuda(o: Options, inputs: Float32Array[]): Promise<{ side: Side; output: Float32Array } | { unavailable: string }> {
  if (!cuda.available()) return { unavailable: `no CUDA device (${cuda.unavailableReason() ?? "unknown"})` };
  const mod = await build(schedule(o.size), "cuda", { device: "cuda", cacheDir: false });
  const device = inputs.map((a) => NDArray.from(a, { shape: [o.size, o.size], dtype: "float32" }));
  try {
    mod(...device);
    const output = device[3]!.toFloat32Array();
    await mod.timeEvaluator({ number: 100, repeat: 3 })(...device); // warm-up, as the WGSL side has
    const t = await mod.timeEvaluator({ number: 3, repeat: o.repeat })(...device);
    const name = cuda.device(0).name;
    return { side: { device: name, medianMs: t.median, gflops: (2 * o.size ** 3) / (t.median * 1e6), timing: t.clock }, output };
  } finally {
    for (const d of device) d.dispose();
    mod.dispose();
  }
}

/** Elements of `got` farther than 1e-3 (relative to max(1, |expected|)) from `expected`. */
function mismatches(got: Float32Array, expected: Float32Array): number {
  let bad = 0;
  for (let i = 0; i < got.length; i++) if (!(Math.abs(got[i]! - expected[i]!) <= 1e-3 * Math.max(1, Math.abs(expected[i]!)))) bad++;
  return bad;
}

function markdown(report: Record<string, unknown>, wgsl: Side | undefined, cudaSide: Side | undefined, ratio: number | undefined, notes: string[]): string {
  const row = (name: string, s: Side | undefined) =>
    s === undefined ? `| ${name} | — | — | — | — |` : `| ${name} | ${s.device} | ${s.medianMs.toFixed(3)} | ${s.gflops.toFixed(1)} | ${s.timing} |`;
  return [
    `# WGSL (Dawn) against CUDA: the fast gemm+ReLU+add schedule at ${String(report["size"])}³`,
    "",
    `Written by \`pnpm bench:wgsl${report["dryRun"] === true ? " --dry-run" : ""}\` on ${String(report["date"])}.`,
    "",
    "| kernel | device | median ms | GFLOP/s | timing |",
    "| --- | --- | --- | --- | --- |",
    row("WGSL", wgsl),
    row("CUDA", cudaSide),
    "",
    ratio === undefined ? "No ratio: one side did not run (see the notes)." : `Throughput WGSL / CUDA: **${ratio.toFixed(3)}×** (goal ≥ 0.7×, stretch 0.85×).`,
    "",
    ...notes.map((n) => `- ${n}`),
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const n = o.size;
  const original = gemmReluAdd(n).func;
  const inputs = randomArgs(original, 1) as Float32Array[];
  const notes: string[] = [];
  const wgsl = await runWgsl(o, inputs);
  const cudaRun = await runCuda(o, inputs);
  const failures: string[] = [];
  if ("unavailable" in wgsl) notes.push(`WGSL did not run: ${wgsl.unavailable}.`);
  if ("unavailable" in cudaRun) notes.push(`CUDA did not run: ${cudaRun.unavailable}.`);
  if (n <= 256) {
    const expected = inputs.map((a) => a.slice());
    compilePrimFunc(original).run(expected);
    for (const [name, r] of [
      ["WGSL", wgsl],
      ["CUDA", cudaRun],
    ] as const) {
      if ("output" in r) {
        const bad = mismatches(r.output, expected[3]!);
        notes.push(`${name} against the JS executor: ${bad} mismatching elements.`);
        if (bad > 0) failures.push(name);
      }
    }
  } else if ("output" in wgsl && "output" in cudaRun) {
    const bad = mismatches(wgsl.output, cudaRun.output);
    notes.push(`WGSL against CUDA: ${bad} mismatching elements.`);
    if (bad > 0) failures.push("WGSL");
  }
  const wgslSide = "side" in wgsl ? wgsl.side : undefined;
  const cudaSide = "side" in cudaRun ? cudaRun.side : undefined;
  if (wgslSide?.timing === "cpu") notes.push("WGSL timed on the CPU (submit to onSubmittedWorkDone): the adapter has no timestamp-query.");
  const ratio = wgslSide !== undefined && cudaSide !== undefined ? wgslSide.gflops / cudaSide.gflops : undefined;
  const report = {
    size: n,
    dryRun: o.dryRun,
    backend: o.backend,
    dawnFeatures: o.dawnFeatures,
    date: new Date().toISOString(),
    wgsl: wgslSide ?? null,
    cuda: cudaSide ?? null,
    ratio: ratio ?? null,
    notes,
  };
  const stem = `${o.dryRun ? "wgsl-vs-cuda-dry-run" : "wgsl-vs-cuda"}${o.dawnFeatures.length > 0 ? `-${o.dawnFeatures.join("-")}` : ""}`;
  mkdirSync(o.outDir, { recursive: true });
  writeFileSync(join(o.outDir, `${stem}.json`), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(o.outDir, `${stem}.md`), markdown(report, wgslSide, cudaSide, ratio, notes));
  console.log(markdown(report, wgslSide, cudaSide, ratio, notes));
  if (failures.length > 0) process.exitCode = 1;
  process.exit();
}

await main();
