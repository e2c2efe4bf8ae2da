/**
 * pnpm bench:mbarrier: the warp-specialised bulk-copy pipeline (corpus: loweredBulkCopyScript — a
 * producer thread streams tiles with `cp.async.bulk` into a ring of shared stages, consumer warps
 * wait on each stage's full mbarrier and release it through its empty one) on the GPU, once per
 * stage count, each output checked element for element against the sequential executor (exact:
 * B = 2·A permuted). This is the hardware check of the mbarrier phase rules the simulator
 * enforces (parity of the first wait, expect_tx before the copy, the release order): a wrong
 * parity or arrival count hangs the kernel, so run it under `timeout`.
 *
 * The producer is a thread issuing one `cp.async.bulk` per stage (`bulk`) or a warp of 16-byte
 * cp.async copies arriving with `cp.async.mbarrier.arrive.noinc` (`cp.async`).
 *
 * `--producers bulk,cp.async` (default both), `--stages 1,2,3,4` (default), `--tiles N` (default 256), `--warps N` consumer warps (default 4),
 * `--lanes N` floats per consumer thread (default 4), `--repeat N` launches per configuration
 * (default 20, each checked), `--out FILE.json`; `--dry-run`: the simulator (H100 limits) with
 * `--tiles 8`. Exits 1 when a check fails, 2 on a bad option.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { bulkCopyReferenceScript, loweredBulkCopyScript } from "@tessera/corpus";
import { cudaTarget, moduleFromKernelFunc } from "@tessera/codegen";
import { compilePrimFunc, parsePrimFunc, randomArgs } from "@tessera/ir";
import { NDArray, build, cuda } from "../src/index.js";

type Producer = "bulk" | "cp.async";

interface Options {
  readonly stages: number[];
  readonly producers: Producer[];
  readonly tiles: number;
  readonly warps: number;
  readonly lanes: number;
  readonly repeat: number;
  readonly out: string | undefined;
  readonly dryRun: boolean;
}

function positive(name: string, text: string): number {
  const v = Number(text);
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name}: expected a positive integer, got ${JSON.stringify(text)}`);
  return v;
}

function optionsOrExit(argv: readonly string[]): Options {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: {
        stages: { type: "string", default: "1,2,3,4" },
        producers: { type: "string", default: "bulk,cp.async" },
        tiles: { type: "string" },
        warps: { type: "string", default: "4" },
        lanes: { type: "string", default: "4" },
        repeat: { type: "string", default: "20" },
        out: { type: "string" },
        "dry-run": { type: "boolean", default: false },
      },
      strict: true,
    });
    const dryRun = values["dry-run"];
    return {
      stages: values.stages.split(",").map((s) => positive("stages", s)),
      producers: values.producers.split(",").map((p) => {
        if (p !== "bulk" && p !== "cp.async") throw new Error(`--producers: expected bulk or cp.async, got ${JSON.stringify(p)}`);
        return p;
      }),
      tiles: positive("tiles", values.tiles ?? (dryRun ? "8" : "256")),
      warps: positive("warps", values.warps),
      lanes: positive("lanes", values.lanes),
      repeat: positive("repeat", values.repeat),
      out: values.out,
      dryRun,
    };
  } catch (err) {
    console.error(`bench:mbarrier: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  }
}

interface Result {
  readonly producer: Producer;
  readonly stages: number;
  readonly tiles: number;
  readonly device: "cuda" | "sim";
  readonly launches: number;
  /** Elements with other bits than the executor's, summed over the launches. */
  readonly differing: number;
  readonly passed: boolean;
}

async function check(o: Options, producer: Producer, stages: number): Promise<Result> {
  const name = `bulk_copy_${producer === "bulk" ? "tma" : "cp_async"}_s${stages}`;
  const pipeline = { stages, tiles: o.tiles, consumerWarps: o.warps, lanes: o.lanes, producer, name };
  const reference = parsePrimFunc(bulkCopyReferenceScript(pipeline));
  const [a, want] = randomArgs(reference, stages) as [Float32Array, Float32Array];
  compilePrimFunc(reference).run([a, want]);
  const module = moduleFromKernelFunc(parsePrimFunc(loweredBulkCopyScript(pipeline)), { target: cudaTarget("nvidia/h100") });
  // A lowered module keeps its target (sm_90 limits); the GPU compiles it for the local device.
  const mod = await build(module, undefined, o.dryRun ? { device: "sim" } : { device: "cuda", cacheDir: false });
  const launches = o.dryRun ? 1 : o.repeat;
  let differing = 0;
  try {
    for (let r = 0; r < launches; r++) {
      let got: Float32Array;
      if (o.dryRun) {
        got = new Float32Array(want.length).fill(Number.NaN);
        mod(a.slice(), got);
      } else {
        const [A, B] = [
          NDArray.from(a, { dtype: "float32", shape: [a.length] }),
          NDArray.from(new Float32Array(want.length).fill(Number.NaN), { dtype: "float32", shape: [want.length] }),
        ];
        try {
          mod(A, B);
          got = B.toFloat32Array();
        } finally {
          A.dispose();
          B.dispose();
        }
      }
      const [w, g] = [new Uint32Array(want.buffer), new Uint32Array(got.buffer)];
      for (let i = 0; i < w.length; i++) if (w[i] !== g[i]) differing++;
    }
  } finally {
    mod.dispose();
  }
  return { producer, stages, tiles: o.tiles, device: o.dryRun ? "sim" : "cuda", launches, differing, passed: differing === 0 };
}

async function main(): Promise<void> {
  const o = optionsOrExit(process.argv.slice(2));
  if (!o.dryRun && !cuda.available()) {
    console.log(`SKIP bench:mbarrier: no CUDA device (${cuda.unavailableReason() ?? "unknown"}); --dry-run runs the pipelines in the simulator`);
    return;
  }
  const results: Result[] = [];
  for (const producer of o.producers) {
    for (const stages of o.stages) {
      const what = `${producer} pipeline, ${stages} stages`;
      try {
        const r = await check(o, producer, stages);
        results.push(r);
        console.log(
          `${r.passed ? "PASS" : "FAIL"} ${what}, ${o.tiles} tiles of ${o.warps * 32 * o.lanes} floats on ${r.device}: ${r.differing} elements differ over ${r.launches} launches`,
        );
      } catch (err) {
        console.log(`FAIL ${what}: ${err instanceof Error ? err.message.split("\n").slice(0, 6).join(" | ") : String(err)}`);
        process.exitCode = 1;
      }
    }
  }
  if (o.out !== undefined) writeFileSync(o.out, `${JSON.stringify({ options: o, results }, null, 2)}\n`);
  if (results.some((r) => !r.passed)) process.exitCode = 1;
}

await main();
