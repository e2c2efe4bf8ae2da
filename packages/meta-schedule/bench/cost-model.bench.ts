/**
 * Cost-model timings: per-store feature extraction per candidate (the 2048³ gemm+ReLU+add
 * schedules of the corpus and samples of the course-style space), forest training on ~500
 * measured samples and prediction for ~2000 candidates.
 *   pnpm exec tsx --conditions=@tessera/source packages/meta-schedule/bench/cost-model.bench.ts [train] [predict]
 */
import { target } from "@tessera/codegen";
import { fastSchedule, manualSchedule, naiveSchedule } from "@tessera/corpus";
import { gemmReluAdd } from "@tessera/ir";
import { ForestModel, type MeasureCandidate, type RunnerResult, tuneContext, workloadOf } from "../src/index.js";
import { DEFAULT_FOREST_OPTIONS, Forest } from "../src/cost-model/forest.js";
import { PER_STORE_FEATURE_LENGTH } from "../src/feature/feature-names.js";
import { TrainingData } from "../src/cost-model/training-data.js";
import { candidateVector } from "../src/cost-model/candidate-vector.js";
import { perStoreFeatures } from "../src/feature/per-store-feature.js";
import { sampleGemmSchedule, syntheticLatency } from "../test/cost-model/gemm-space.js";

const N = 2048;
const trainCount = Number(process.argv[2] ?? 500);
const predictCount = Number(process.argv[3] ?? 2000);

function msPer(fn: () => unknown, reps: number): number {
  for (let i = 0; i < Math.min(20, reps); i++) fn();
  const t = performance.now();
  for (let i = 0; i < reps; i++) fn();
  return (performance.now() - t) / reps;
}

for (const [name, sch] of [
  ["naive", naiveSchedule(N)],
  ["manual", manualSchedule(N)],
  ["fast", fastSchedule(N)],
] as const) {
  const func = sch.func;
  console.log(
    `features of the ${name} schedule: ${perStoreFeatures(func).length} rows, ${msPer(() => perStoreFeatures(func), 300).toFixed(3)} ms per candidate`,
  );
}

const t0 = performance.now();
const samples = Array.from({ length: trainCount + predictCount }, (_, k) => sampleGemmSchedule(N, k + 1));
console.log(`sampled ${samples.length} schedules of the course-style space in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const candidates: MeasureCandidate[] = samples.map((s) => ({ sch: s.sch, argsInfo: [] }));
const results: RunnerResult[] = samples.map((s) => {
  const lat = syntheticLatency(N, s.tiles);
  return lat === undefined ? { ok: false, error: "invalid" } : { ok: true, runSecs: [lat] };
});
const funcs = samples.map((s) => s.sch.func);
const tf = performance.now();
const vectors = funcs.map((f) => candidateVector(perStoreFeatures(f), PER_STORE_FEATURE_LENGTH));
console.log(`features of ${funcs.length} sampled candidates: ${((performance.now() - tf) / funcs.length).toFixed(3)} ms per candidate`);
const data = new TrainingData();
data.add("gemm", vectors.slice(0, trainCount), results.slice(0, trainCount));
const { vectors: trainVectors, labels } = data.samples();
const tt = performance.now();
const forest = Forest.train(trainVectors, labels, DEFAULT_FOREST_OPTIONS);
console.log(`forest training on ${trainCount} samples (features given): ${(performance.now() - tt).toFixed(0)} ms`);
const tq = performance.now();
forest.predict(vectors.slice(trainCount));
console.log(`forest prediction for ${predictCount} candidates (features given): ${(performance.now() - tq).toFixed(0)} ms`);

const ctx = tuneContext(workloadOf(gemmReluAdd(N).func), target("nvidia/h100"), { seed: 1 });
const model = new ForestModel({ numWarmupSamples: trainCount });
const tu = performance.now();
model.update(ctx, candidates.slice(0, trainCount), results.slice(0, trainCount));
const updateMs = performance.now() - tu;
console.log(`update with ${trainCount} samples (features + training): ${updateMs.toFixed(0)} ms`);
const tp = performance.now();
model.predict(ctx, candidates.slice(trainCount));
console.log(`predict ${predictCount} candidates (features + forest): ${(performance.now() - tp).toFixed(0)} ms`);
