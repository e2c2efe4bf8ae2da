/**
 * `pnpm bench:cpu-tune-ops`: tunes each d2l CPU operator (conv2d, depthwise conv2d, max and avg
 * pooling, batch norm, at the sizes of `pnpm bench:cpu`) for the C target with `tuneTIR`, then
 * times the best record back to back with the hand-written d2l schedule in this process (the
 * tuned one twice, around the hand one; the faster counts) and with PyTorch on the CPU (oneDNN; its
 * default threads and one thread, the faster counts), the reference issue 36's targets name. Writes
 * docs/benchmarks/cpu-tuning-operators.{md,json}. Without an importable torch the PyTorch column is
 * skipped with one line saying why (`bash scripts/bench-venv.sh` makes the pinned venv).
 *
 *   pnpm bench:cpu-tune-ops [--ops conv2d,max_pool2d] [--channels 16,64,256] [--trials 64] [--per-iter 32] [--seed 1] [--out DIR]
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { target as targetOf } from "@tessera/codegen";
import * as d2l from "@tessera/corpus/d2l-cpu";
import { type TypedArray, randomArgs } from "@tessera/ir";
import { type HostModule, build } from "@tessera/runtime";
import { TORCH_INSTALL, runTorch, torchInfo } from "../../runtime/bench/cpu-torch.js";
import { tuneTIR } from "../src/index.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

interface OperatorRow {
  readonly op: string;
  readonly channels: number;
  readonly trials: number;
  readonly failed: number;
  readonly tuningSeconds: number;
  readonly tunedGflops: number;
  readonly handGflops: number;
  readonly tunedOverHand: number;
  readonly torchGflops: number | null;
  readonly torchVariant: string | null;
  /** PyTorch's time over the tuned record's: above 1, Tessera is faster. */
  readonly tunedOverTorch: number | null;
  readonly target: number | null;
  readonly load1: number;
}

/** PyTorch's case of an operator, in cpu_torch_reference.py's form (the shapes of `operator`). */
function torchCase(name: string, channels: number): Record<string, unknown> {
  const conv = { op: name, channels, size: 64, kernel: 3, padding: 1 };
  if (name === "max_pool2d" || name === "avg_pool2d") return { ...conv, stride: 1 };
  if (name === "batch_norm") return { op: name, channels, size: 64, kernel: 0, padding: 0 };
  return conv;
}

/** What issue 36 asks of the tuned operator against PyTorch: at least as fast for conv2d, 1.5× for depthwise and pooling. */
const TARGET_OVER_TORCH: Readonly<Record<string, number>> = { conv2d: 1, depthwise_conv2d: 1.5, max_pool2d: 1.5, avg_pool2d: 1.5 };

function channelsOf(text: string): number[] {
  const list = text.split(",").map((s) => Number(s.trim()));
  const bad = list.find((c) => !Number.isInteger(c) || c < 1);
  if (bad !== undefined) throw new RangeError(`bench:cpu-tune-ops: --channels takes positive integers separated by commas, got "${text}"`);
  return list;
}

/** The operators at bench:cpu's shapes (64×64 images, 3×3 windows, padding 1). */
function operator(name: string, channels: number): d2l.ScheduledOperator {
  const conv = { channels, size: 64, kernel: 3, padding: 1 };
  switch (name) {
    case "conv2d":
      return d2l.conv2dCpu(conv);
    case "depthwise_conv2d":
      return d2l.depthwiseConv2dCpu(conv);
    case "max_pool2d":
      return d2l.maxPoolCpu({ ...conv, stride: 1 });
    case "avg_pool2d":
      return d2l.avgPoolCpu({ ...conv, stride: 1 });
    case "batch_norm":
      return d2l.batchNormCpu(channels, 64);
    default:
      throw new Error(`bench:cpu-tune-ops: unknown operator ${name}; known: conv2d, depthwise_conv2d, max_pool2d, avg_pool2d, batch_norm`);
  }
}

async function medianMs(mod: HostModule, args: readonly TypedArray[]): Promise<number> {
  return (await mod.timeEvaluator({ number: 1, repeat: 5, minRepeatMs: 50 })(...args)).median;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      ops: { type: "string", default: "conv2d,depthwise_conv2d,max_pool2d,avg_pool2d,batch_norm" },
      channels: { type: "string", default: "16,64,256" },
      trials: { type: "string", default: "64" },
      "per-iter": { type: "string", default: "32" },
      seed: { type: "string", default: "1" },
      out: { type: "string", default: join(repoRoot, "docs", "benchmarks") },
    },
  });
  const channelList = channelsOf(values.channels!);
  const trials = Number(values.trials);
  const perIter = Number(values["per-iter"]);
  const seed = Number(values.seed);
  const target = targetOf("llvm");
  const loadBefore = os.loadavg()[0]!.toFixed(2);
  const torch = torchInfo();
  if (!torch.available) console.log(`bench:cpu-tune-ops: no PyTorch column (${torch.why}); for it: ${TORCH_INSTALL}`);
  const names = values.ops!.split(",").map((s) => s.trim());
  for (const name of names) operator(name, 1); // an unknown name fails here, before any tuning
  const rows: OperatorRow[] = [];
  for (const channels of channelList)
    for (const name of names) {
      const op = operator(name, channels);
      const workDir = mkdtempSync(join(os.tmpdir(), `tessera-cpu-tune-${name}-`));
      const t0 = performance.now();
      const result = await tuneTIR(op.original, target, { workDir, maxTrialsGlobal: trials, numTrialsPerIter: perIter, seed, writeCurve: false });
      const tuneSecs = (performance.now() - t0) / 1000;
      if (result.bestSchedule === undefined) throw new Error(`bench:cpu-tune-ops: no candidate of ${name} built and ran`);
      const args = randomArgs(op.original, 3, { low: 0.5, high: 1 }) as TypedArray[];
      const tuned = await build(result.bestSchedule.func, target);
      const hand = await build(op.scheduled, target);
      const tunedMs = await medianMs(tuned, args);
      const handMs = await medianMs(hand, args);
      const tunedAgainMs = await medianMs(tuned, args);
      tuned.dispose();
      hand.dispose();
      const bestTunedMs = Math.min(tunedMs, tunedAgainMs);
      const pt = torch.available ? runTorch([torchCase(name, channels)])[0] : undefined;
      const row = {
        op: name,
        channels,
        trials,
        failed: result.history.filter((t) => !t.ok).length,
        tuningSeconds: tuneSecs,
        tunedGflops: op.flops / bestTunedMs / 1e6,
        handGflops: op.flops / handMs / 1e6,
        tunedOverHand: handMs / bestTunedMs,
        torchGflops: pt === undefined ? null : op.flops / pt.ms / 1e6,
        torchVariant: pt?.variant ?? null,
        tunedOverTorch: pt === undefined ? null : pt.ms / bestTunedMs,
        target: TARGET_OVER_TORCH[name] ?? null,
        load1: os.loadavg()[0]!,
      };
      console.log(row);
      rows.push(row);
    }
  const outDir = values.out!;
  mkdirSync(outDir, { recursive: true });
  const torchLine = torch.available
    ? `${torch.version}, oneDNN ${torch.mkldnn ? "on" : "off"}, ${torch.defaultThreads} default threads`
    : `not run (${torch.why})`;
  writeFileSync(
    join(outDir, "cpu-tuning-operators.json"),
    `${JSON.stringify({ date: new Date().toISOString(), cpus: os.cpus().length, loadBefore, loadAfter: os.loadavg()[0]!.toFixed(2), torch: torchLine, rows }, null, 2)}\n`,
  );
  const ratio = (x: number | null) => (x === null ? "–" : `${x.toFixed(2)}×`);
  const verdict = (r: OperatorRow) =>
    r.target === null || r.tunedOverTorch === null ? "–" : `≥ ${r.target}×: ${r.tunedOverTorch >= r.target ? "met" : "not met"}`;
  const md = [
    "# Tuning the d2l CPU operators for the C target",
    "",
    "Generated by `pnpm bench:cpu-tune-ops` (packages/meta-schedule/bench/cpu-tune-ops.bench.ts): each operator at",
    '`pnpm bench:cpu`\'s shape tuned with `tuneTIR(func, "llvm")` (the CPU space, the evolutionary search, gcc,',
    "the runner's child), then its best record and the hand-written d2l schedule timed back to back here",
    "(timeEvaluator: 5 samples of at least 50 ms, median; the tuned one twice, the faster counts), and PyTorch",
    "on the CPU right after (cpu_torch_reference.py, the same evaluator; its default threads and one thread, the",
    "faster counts). Ratios are of throughput: above 1× Tessera is faster.",
    "",
    `**Noise:** ${os.cpus().length} cores; load average ${loadBefore} before. **PyTorch:** ${torchLine}.`,
    "",
    "| operator | channels | trials (failed) | tuning s | tuned GFLOPS | hand GFLOPS | PyTorch GFLOPS (variant) | tuned / hand | tuned / PyTorch | target | load (1 min) |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.op} | ${r.channels} | ${r.trials} (${r.failed}) | ${r.tuningSeconds.toFixed(0)} | ${r.tunedGflops.toFixed(1)} | ${r.handGflops.toFixed(1)} | ${r.torchGflops === null ? "–" : `${r.torchGflops.toFixed(1)} (${r.torchVariant})`} | ${r.tunedOverHand.toFixed(2)}× | ${ratio(r.tunedOverTorch)} | ${verdict(r)} | ${r.load1.toFixed(1)} |`,
    ),
    "",
  ].join("\n");
  writeFileSync(join(outDir, "cpu-tuning-operators.md"), md);
  console.log(`wrote ${join(outDir, "cpu-tuning-operators.md")}`);
}

try {
  await main();
} catch (err) {
  // A bad flag or an operator that never ran is one line, not a stack trace.
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(2);
}
