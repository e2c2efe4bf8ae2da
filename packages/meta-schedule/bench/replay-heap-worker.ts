/** The worker thread of replay-heap.bench.ts: replays each chunk of requests it is sent, as a search worker does (`runReplayJob`). */
import { parentPort } from "node:worker_threads";
import { runReplayJob } from "../src/search/replay-job.js";
import { workloadOf } from "../src/workload.js";
import { gemmReluAdd } from "@tessera/ir";
import { target } from "@tessera/codegen";
const workload = workloadOf(gemmReluAdd(2048).func);
const t = target("nvidia/h100") as never;
parentPort!.on("message", (requests) => {
  const replies = runReplayJob({ workload, target: t, postprocs: "cuda-default", requests }, true);
  parentPort!.postMessage(replies.filter((r) => r.ok).length);
});
parentPort!.postMessage("ready");
