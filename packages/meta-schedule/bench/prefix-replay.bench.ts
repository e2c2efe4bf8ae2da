/**
 * `tsx --conditions=@tessera/source packages/meta-schedule/bench/prefix-replay.bench.ts [--parents 8] [--mutants 64] [--seed 1]`
 *
 * The CPU of replaying mutants (trace application and the postprocessors, VerifyGPUCode's lowering
 * included) of gemm+ReLU+add 2048³ in the default CUDA space, from a cached prefix state
 * (space/prefix-states.ts) and from scratch, side by side in one process: the parents are sampled
 * and replayed once (warming the cache as a search would), then each mutant is replayed both ways
 * in turn, alternating which goes first, and the two results are checked equal. VerifyGPUCode's
 * verdict memo is cleared before every replay, so both sides lower.
 */
import { parseArgs } from "node:util";
import { target } from "@tessera/codegen";
import { gemmReluAdd } from "@tessera/ir";
import { RandomEngine, type Trace } from "@tessera/schedule";
import { clearVerdictMemo } from "../src/postproc/verify-gpu-code.js";
import { defaultCudaSpaceGenerator } from "../src/space/defaults.js";
import { PrefixStateCache } from "../src/space/prefix-states.js";
import { type ReplayOutcome, replayWithPostprocs } from "../src/space/replay.js";
import { tuneContext } from "../src/tune-context.js";
import { workloadOf } from "../src/workload.js";
import type { CudaTarget } from "@tessera/codegen";

const { values } = parseArgs({
  options: {
    parents: { type: "string", default: "8" },
    mutants: { type: "string", default: "64" },
    seed: { type: "string", default: "1" },
  },
});
const H100 = target("nvidia/h100") as CudaTarget;
const ctx = tuneContext(workloadOf(gemmReluAdd(2048).func), H100, { seed: Number(values.seed) });
const space = defaultCudaSpaceGenerator(H100);
space.initialize?.(ctx);
const design = space.generateDesignSpace(ctx)[0]!.trace.simplified({ removePostproc: true });
const { postprocs, mutators } = space;
const rng = new RandomEngine(Number(values.seed));
const cache = new PrefixStateCache();

function cpuMs<T>(f: () => T): { value: T; ms: number } {
  clearVerdictMemo();
  const started = process.cpuUsage();
  const value = f();
  const spent = process.cpuUsage(started);
  return { value, ms: (spent.user + spent.system) / 1000 };
}

const summary = (out: ReplayOutcome) => (out.ok ? JSON.stringify(out.sch.trace.toJSON()) : out.reason);

const parents: Trace[] = [];
while (parents.length < Number(values.parents)) {
  const out = replayWithPostprocs(ctx, design, postprocs, { freshDecisions: true, seed: rng.forkSeed(), prefixStates: cache });
  if (out.ok) parents.push(out.sch.trace);
}
// Warm-up of both paths (the JIT), not counted.
for (const parent of parents.slice(0, 2)) replayWithPostprocs(ctx, parent, postprocs, { seed: 1 });

let cachedMs = 0;
let fullMs = 0;
let replays = 0;
const hitsBefore = cache.hits;
const skippedBefore = cache.instructionsSkipped;
while (replays < Number(values.mutants)) {
  const parent = parents[rng.int(0, parents.length)]!;
  const { mutator } = mutators[rng.int(0, mutators.length)]!;
  const child = mutator.apply(parent, rng, ctx);
  if (child === undefined) continue;
  const seed = rng.forkSeed();
  const cached = () => cpuMs(() => replayWithPostprocs(ctx, child, postprocs, { seed, prefixStates: cache }));
  const full = () => cpuMs(() => replayWithPostprocs(ctx, child, postprocs, { seed }));
  const [a, b] = replays % 2 === 0 ? [cached(), full()] : [full(), cached()].reverse();
  if (summary(a!.value) !== summary(b!.value)) throw new Error(`a mutant of ${mutator.name} replayed from a cached prefix differs from its full replay`);
  cachedMs += a!.ms;
  fullMs += b!.ms;
  replays++;
}
const instructions = design.instructions.length;
console.log(
  JSON.stringify(
    {
      mutants: replays,
      fullMsPerReplay: +(fullMs / replays).toFixed(2),
      cachedMsPerReplay: +(cachedMs / replays).toFixed(2),
      ratio: +(cachedMs / fullMs).toFixed(3),
      prefixHits: cache.hits - hitsBefore,
      instructionsSkippedPerHit: +((cache.instructionsSkipped - skippedBefore) / Math.max(1, cache.hits - hitsBefore)).toFixed(1),
      traceInstructions: instructions,
      statesHeld: cache.size,
      heapMB: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
    },
    null,
    1,
  ),
);
