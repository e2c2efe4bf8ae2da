/**
 * Entry of the search's worker threads (bundled as ms-replay-worker.mjs): replays a job's traces
 * with the postprocessors and answers with the candidates' functions, traces, hashes and lowered
 * modules (replay-job.ts).
 */
import { serveTasks } from "../isolation/serve.js";
import { type ReplayJob, type ReplayReply, runReplayJob } from "./replay-job.js";

serveTasks<ReplayJob, ReplayReply[]>((job) => runReplayJob(job, true));
