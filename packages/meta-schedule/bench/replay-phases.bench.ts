/**
 * `tsx --conditions=@tessera/source packages/meta-schedule/bench/replay-phases.bench.ts [--replays 200] [--skip 0] [--requests FILE] [--population 256] [--seed 1] [--check-only] [--compare REF [--chunk 25] [--passes 2]]`
 *
 * Where a search worker's replay spends its CPU, phase by phase, on the replays a real search asks
 * for: gemm+ReLU+add 2048³ in the default CUDA space. The first run records the replay requests of
 * one round of an evolutionary search at population 256 (`--workers 0`, the analytic model, what a
 * 256-trial run's first round replays: ~1,000 requests, fresh samples then mutants and crossovers)
 * into FILE (default: the OS's temp folder); later runs read them back. Then it replays requests
 * `0 … skip+replays` in order in one thread (timing those from `skip` on), as a worker serves a job (`runReplayJob`: the
 * thread's prefix states and VerifyGPUCode's verdict memo live on across requests), timing each
 * phase with the thread's CPU clock: parsing the trace, applying it, each postprocessor (and of
 * VerifyGPUCode its lowering), the structural hash, the estimate, the trace's text.
 *
 * It prints the outputs' digest: per request the reply (trace text, hash, estimate, launch shape, or
 * the rejection) and the CUDA source of VerifyGPUCode's module (made after the timing, not timed).
 * Two trees that print the same digest on the same requests hand the search the same candidates
 * and the builder the same programs. The timed pass follows an untimed one (V8's warm-up), unless
 * `--check-only`. Phases are read with `process.cpuUsage` (the process: V8's GC threads included).
 *
 * `--compare REF` replays the same requests with this working tree and with commit REF side by side
 * in one process (../../ir/bench/tree-at-ref.ts: both bundled the same way), as a worker serves them
 * (`runReplayJob`), in chunks of `--chunk` requests taking turns (which side goes first alternates),
 * each side with its own prefix states and verdict memo; `--passes` times the whole list that many
 * times (the first pass is V8's warm-up, not counted). Every reply and the CUDA of every module are
 * checked equal between the two sides; it prints CPU ms a replay for each and their ratio.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type CudaTarget, codegenCuda, target } from "@tessera/codegen";
import { gemmReluAdd, structuralHash } from "@tessera/ir";
import { Trace } from "@tessera/schedule";
import { AnalyticModel, EvolutionarySearch, MemoryDatabase } from "../src/index.js";
import { estimateOfModule } from "../src/feature/latency-estimate-of.js";
import { clearVerdictMemo, loweredModuleFor } from "../src/postproc/verify-gpu-code.js";
import { CandidateReplayer } from "../src/search/candidate-replayer.js";
import { launchClassOfModule } from "../src/search/launch-classes.js";
import type { ReplayRequest } from "../src/search/replay-job.js";
import { traceKeyOfText } from "../src/search/trace-key.js";
import { defaultCudaSpaceGenerator } from "../src/space/defaults.js";
import { resetThreadPrefixStates } from "../src/space/prefix-states.js";
import { replayWithPostprocs } from "../src/space/replay.js";
import { tuneContext } from "../src/tune-context.js";
import { workloadOf } from "../src/workload.js";
import type { Postproc } from "../src/interfaces/postproc.js";
import { measureWithStandIn } from "./stand-in-latency.js";
import { type LoadedTree, type TreeSource, loadPair, runIfComparing } from "../../ir/bench/tree-at-ref.js";

const USAGE =
  "usage: replay-phases.bench.ts [--replays N] [--skip N] [--requests FILE] [--population N] [--seed N] [--check-only] [--compare REF [--chunk N] [--passes N]]";

/** The options, or one line naming the bad one and the usage (exit 2). */
function options() {
  try {
    const { values } = parseArgs({
      options: {
        replays: { type: "string", default: "200" },
        skip: { type: "string", default: "0" },
        requests: { type: "string" },
        population: { type: "string", default: "256" },
        seed: { type: "string", default: "1" },
        "check-only": { type: "boolean", default: false },
        compare: { type: "string" },
        with: { type: "string" },
        chunk: { type: "string", default: "25" },
        passes: { type: "string", default: "2" },
      },
    });
    for (const key of ["replays", "skip", "population", "seed", "chunk", "passes"] as const) {
      const v = Number(values[key]);
      if (!Number.isInteger(v) || v < 0) throw new RangeError(`--${key} must be an integer ≥ 0, got ${JSON.stringify(values[key])}`);
    }
    return values;
  } catch (err) {
    console.error(`replay-phases: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
}

const values = options();

/** CPU ms of the calling thread. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const H100 = target("nvidia/h100") as CudaTarget;
const func = gemmReluAdd(2048).func;
const population = Number(values.population);
const seed = Number(values.seed);
const file = values.requests ?? join(tmpdir(), `replay-requests-p${population}-s${seed}.json`);

/** One round of the search, its replay requests recorded in order. */
async function recordRequests(): Promise<ReplayRequest[]> {
  const recorded: ReplayRequest[] = [];
  type Plan = { freshDecisions: boolean; seed: number };
  const proto = CandidateReplayer.prototype as unknown as { replayUncached: (plans: Plan[], texts: string[]) => Promise<unknown[]> };
  const replayUncached = proto.replayUncached;
  proto.replayUncached = function (this: CandidateReplayer, plans: Plan[], texts: string[]) {
    plans.forEach((p, k) => recorded.push({ trace: texts[k]!, freshDecisions: p.freshDecisions, seed: p.seed }));
    return replayUncached.call(this, plans, texts);
  };
  const ctx = tuneContext(workloadOf(func), H100, { seed });
  const space = defaultCudaSpaceGenerator(H100);
  space.initialize?.(ctx);
  const database = new MemoryDatabase();
  const costModel = new AnalyticModel();
  const strategy = new EvolutionarySearch({ populationSize: population });
  strategy.preTuning(ctx, { maxTrials: 32, numTrialsPerIter: 32, designSpaces: space.generateDesignSpace(ctx), space, database, costModel });
  const batch = await strategy.generateMeasureCandidates(ctx);
  if (batch !== undefined) measureWithStandIn(database, func, H100, batch);
  proto.replayUncached = replayUncached;
  return recorded;
}

if (!existsSync(file)) {
  const requests = await recordRequests();
  writeFileSync(file, JSON.stringify(requests));
  console.error(`recorded ${requests.length} replay requests into ${file}`);
}
const all = JSON.parse(readFileSync(file, "utf8")) as ReplayRequest[];
const skip = Number(values.skip);
/** Replayed in order from the first; only those from `skip` on are timed (the earlier ones warm the thread's caches as a worker's earlier jobs would). */
const requests = all.slice(0, skip + Number(values.replays));

/** What one side of `--compare` is: the internals `runReplayJob` and the caches it uses, from one tree. */
interface Side {
  readonly label: string;
  readonly replayJob: typeof import("../src/search/replay-job.js");
  readonly verify: typeof import("../src/postproc/verify-gpu-code.js");
  readonly prefix: typeof import("../src/space/prefix-states.js");
  readonly codegen: typeof import("@tessera/codegen");
  readonly workload: ReturnType<typeof workloadOf>;
  readonly target: CudaTarget;
}

function sideOf(tree: LoadedTree): Side {
  const m = tree.modules as unknown as {
    replayJob: Side["replayJob"];
    verify: Side["verify"];
    prefix: Side["prefix"];
    codegen: Side["codegen"];
    ir: typeof import("@tessera/ir");
    workload: typeof import("../src/workload.js");
  };
  return {
    label: tree.label,
    replayJob: m.replayJob,
    verify: m.verify,
    prefix: m.prefix,
    codegen: m.codegen,
    workload: m.workload.workloadOf(m.ir.gemmReluAdd(2048).func),
    target: m.codegen.target("nvidia/h100") as CudaTarget,
  };
}

/** Each reply as text (its CUDA included), to compare the two sides. */
function replyTexts(side: Side, chunk: readonly ReplayRequest[]): { texts: string[]; ms: number } {
  const c0 = cpuMs();
  const replies = side.replayJob.runReplayJob({ workload: side.workload, target: side.target, postprocs: "cuda-default", requests: chunk });
  const ms = cpuMs() - c0;
  const texts = replies.map((r) => {
    if (!r.ok) return `rejected ${r.reason}`;
    const module = side.verify.loweredModuleFor(r.func as never);
    const cuda = module === undefined ? "" : side.codegen.codegenCuda(module).source;
    return `${r.traceText}\n${r.traceKey} ${r.hash} ${JSON.stringify(r.estimate)} ${r.launchClass}\n${cuda}`;
  });
  return { texts, ms };
}

async function compareTrees(sides: { readonly a: TreeSource; readonly b: TreeSource }): Promise<void> {
  const specs = {
    replayJob: "./packages/meta-schedule/src/search/replay-job.ts",
    verify: "./packages/meta-schedule/src/postproc/verify-gpu-code.ts",
    prefix: "./packages/meta-schedule/src/space/prefix-states.ts",
    workload: "./packages/meta-schedule/src/workload.ts",
    codegen: "@tessera/codegen",
    ir: "@tessera/ir",
  };
  const [treeA, treeB] = await loadPair(sides, specs);
  const both = [sideOf(treeA), sideOf(treeB)] as const;
  const chunk = Number(values.chunk);
  const passes = Number(values.passes);
  const spent = [0, 0];
  const ratios: number[] = [];
  let checked = 0;
  for (let pass = 0; pass < passes; pass++) {
    for (const side of both) {
      side.prefix.resetThreadPrefixStates();
      side.verify.clearVerdictMemo();
    }
    for (let from = 0; from < requests.length; from += chunk) {
      const part = requests.slice(from, from + chunk);
      const order = (from / chunk) % 2 === 0 ? [0, 1] : [1, 0];
      const out: { texts: string[]; ms: number }[] = [];
      for (const k of order) out[k] = replyTexts(both[k]!, part);
      out[0]!.texts.forEach((t, i) => {
        if (t !== out[1]!.texts[i]) throw new Error(`request ${from + i}: ${both[0].label} and ${both[1].label} reply differently`);
      });
      checked += part.length;
      if (pass === 0 || from < skip) continue;
      spent[0]! += out[0]!.ms;
      spent[1]! += out[1]!.ms;
      ratios.push(out[0]!.ms / out[1]!.ms);
    }
  }
  treeA.dispose();
  treeB.dispose();
  const timed = (passes - 1) * (requests.length - skip);
  ratios.sort((x, y) => x - y);
  const q = (f: number): number => ratios[Math.min(ratios.length - 1, Math.floor(f * ratios.length))] ?? Number.NaN;
  console.log(
    JSON.stringify(
      {
        a: both[0].label,
        b: both[1].label,
        requestsChecked: checked,
        repliesEqual: true,
        timedReplaysEach: timed,
        msPerReplayA: +(spent[0]! / timed).toFixed(2),
        msPerReplayB: +(spent[1]! / timed).toFixed(2),
        ratioAB: +(spent[0]! / spent[1]!).toFixed(3),
        chunkRatioMedian: +q(0.5).toFixed(3),
        chunkRatioMiddleHalf: [+q(0.25).toFixed(3), +q(0.75).toFixed(3)],
      },
      null,
      1,
    ),
  );
}

function direct(): void {
  /** CPU ms per phase, summed over the timed replays. */
  const phases = new Map<string, number>();
  const add = (phase: string, ms: number): void => void phases.set(phase, (phases.get(phase) ?? 0) + ms);

  function timedPostprocs(postprocs: readonly Postproc[]): Postproc[] {
    return postprocs.map((p) => ({
      name: p.name,
      apply: (sch, ctx) => {
        const c0 = cpuMs();
        try {
          return p.apply(sch, ctx);
        } finally {
          add(`postproc ${p.name}`, cpuMs() - c0);
        }
      },
    }));
  }

  interface Digests {
    replies: ReturnType<typeof createHash>;
    cuda: ReturnType<typeof createHash>;
    ok: number;
    rejected: Map<string, number>;
  }

  function replayAll(timed: boolean): Digests {
    const ctx = tuneContext(workloadOf(func), H100);
    const space = defaultCudaSpaceGenerator(H100);
    const postprocs = timed ? timedPostprocs(space.postprocs) : space.postprocs;
    const prefixStates = resetThreadPrefixStates();
    clearVerdictMemo();
    phases.clear();
    const out: Digests = { replies: createHash("sha256"), cuda: createHash("sha256"), ok: 0, rejected: new Map() };
    for (const [k, request] of requests.entries()) {
      if (k === skip) phases.clear();
      let c = cpuMs();
      const lap = (phase: string): void => {
        const now = cpuMs();
        add(phase, now - c);
        c = now;
      };
      const trace = Trace.fromJSON(request.trace);
      lap("trace parse");
      const replayed = replayWithPostprocs(ctx, trace, postprocs, { freshDecisions: request.freshDecisions, seed: request.seed, prefixStates });
      lap("replay (apply + postprocs)");
      if (!replayed.ok) {
        out.rejected.set(replayed.reason, (out.rejected.get(replayed.reason) ?? 0) + 1);
        out.replies.update(`rejected ${replayed.reason}\n`);
        continue;
      }
      const f = replayed.sch.func;
      const module = loweredModuleFor(f);
      const estimate = module === undefined ? undefined : estimateOfModule(module);
      lap("estimate");
      const traceText = JSON.stringify(replayed.sch.trace.toJSON());
      const traceKey = traceKeyOfText(traceText);
      lap("trace text + key");
      const hash = structuralHash(f);
      lap("structural hash");
      const launchClass = launchClassOfModule(module);
      out.ok++;
      out.replies.update(`${traceText}\n${traceKey} ${hash} ${JSON.stringify(estimate)} ${launchClass}\n`);
      if (module !== undefined) out.cuda.update(`${codegenCuda(module).source}\n`);
    }
    return out;
  }

  if (!values["check-only"]) replayAll(false); // warm-up: V8 compiles the compiler; the timed pass starts with empty caches again
  const result = replayAll(true);
  const n = requests.length - skip;
  const replayMs = phases.get("replay (apply + postprocs)") ?? 0;
  const postprocMs = [...phases].filter(([k]) => k.startsWith("postproc ")).reduce((a, [, v]) => a + v, 0);
  const rows: [string, number][] = [
    ["trace parse", phases.get("trace parse") ?? 0],
    ["trace application", replayMs - postprocMs],
    ...[...phases].filter(([k]) => k.startsWith("postproc ")),
    ["estimate", phases.get("estimate") ?? 0],
    ["trace text + key", phases.get("trace text + key") ?? 0],
    ["structural hash", phases.get("structural hash") ?? 0],
  ];
  console.log(`${n} replays timed (requests ${skip}..${skip + n} of ${all.length}, the digests cover requests 0..${skip + n}: ${result.ok} valid)`);
  console.log("| phase | ms a replay | share |");
  console.log("|---|---:|---:|");
  const accounted = rows.reduce((a, [, v]) => a + v, 0);
  for (const [name, ms] of rows) if (ms / n >= 0.005) console.log(`| ${name} | ${(ms / n).toFixed(2)} | ${((100 * ms) / accounted).toFixed(1)} % |`);
  console.log(`| all phases | ${(accounted / n).toFixed(2)} | |`);
  console.log(`rejections: ${JSON.stringify(Object.fromEntries(result.rejected))}`);
  console.log(
    JSON.stringify({
      replays: n,
      msPerReplay: +(accounted / n).toFixed(2),
      repliesDigest: result.replies.digest("hex").slice(0, 12),
      cudaDigest: result.cuda.digest("hex").slice(0, 12),
    }),
  );
}

if (!runIfComparing(compareTrees)) direct();
