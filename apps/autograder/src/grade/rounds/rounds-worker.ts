/**
 * Entry of the grader's rounds worker thread (bundled as grade-rounds-worker.mjs): runs rounds of
 * a sampled simulator check (sampled-numerics.ts) so that a check uses a second core. It lowers
 * the scheduled function it is sent and runs only if that gives the very kernel the grader lowered.
 */
import { lower } from "@tessera/codegen";
import { parsePrimFunc } from "@tessera/ir";
import { serveTasks } from "@tessera/meta-schedule/isolation";
import type { Dim3 } from "@tessera/simulator";
import { assignmentBinding } from "../../assignment.js";
import { type SamplePlan, runSampledRound } from "../sampled-numerics.js";
import { SIMULATED_TARGET } from "../simulated-target.js";
import { kernelFingerprint } from "./fingerprint.js";
import type { RoundsReply, RoundsRequest } from "./protocol.js";

function answer(req: RoundsRequest): RoundsReply {
  if (req.kind === "ping") return { kind: "pong" };
  const module = lower(parsePrimFunc(req.script, { fileName: "<scheduled function>" }), SIMULATED_TARGET);
  if (kernelFingerprint(module) !== req.fingerprint) throw new Error("the scheduled function lowers to another kernel here than in the grader");
  const plan: SamplePlan = {
    module,
    binding: assignmentBinding(req.assignment),
    n: req.n,
    settings: req.settings,
    seed: req.seed,
    grid: module.kernels[0]!.launch.grid as unknown as Dim3,
    rounds: req.rounds,
  };
  return { kind: "rounds", results: req.run.map((r) => runSampledRound(plan, r)) };
}

serveTasks<RoundsRequest, RoundsReply>(answer);
