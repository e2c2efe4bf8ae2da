/**
 * Entry of the LocalRunner's child process (bundled as ms-runner-child.mjs): measures one
 * candidate per task, or a batch of them in order (`MeasureBatch`), with the backend named by TESSERA_RUNNER_BACKEND (a module URL exporting
 * `backend`), by default the one of the candidate's artifact: the CPU backend for a library
 * compiled for the CPU target (`artifact.host`), else the GPU one. The parent kills and restarts
 * this process when a candidate crashes it or outlives its time limit.
 */
import { pathToFileURL } from "node:url";
import { errorText, isFatalTaskError, serveTasks } from "../isolation/serve.js";
import { type MeasureBackend, type MeasureBatch, type MeasureBatchReply, type MeasureResult, type MeasureTask, isMeasureBatch } from "./measure-backend.js";

function checked(module: { backend?: MeasureBackend }, name: string): MeasureBackend {
  if (typeof module.backend?.measure !== "function") throw new Error(`the runner backend ${name} exports no \`backend\` with a measure() method`);
  return module.backend;
}

async function namedBackend(): Promise<MeasureBackend | undefined> {
  const named = process.env.TESSERA_RUNNER_BACKEND;
  if (named === undefined || named.length === 0) return undefined;
  return checked(await import(named.startsWith("file:") ? named : pathToFileURL(named).href), named);
}

const named = await namedBackend();
// Both loaded before the child says it is ready, so that loading them (seconds on a busy machine)
// never counts against a candidate's time limit. Neither touches its device until it measures.
const [cpu, gpu] =
  named === undefined ? [checked(await import("./cpu-backend.js"), "cpu-backend"), checked(await import("./cuda-backend.js"), "cuda-backend")] : [named, named];

function backendFor(task: MeasureTask): MeasureBackend {
  return task.artifact.host !== undefined ? cpu : gpu;
}

/** Each candidate of the batch in order; a fatal error (the device's state is lost) fails the whole batch. */
async function measureBatch({ batch }: MeasureBatch): Promise<MeasureBatchReply> {
  const out: MeasureBatchReply[number][] = [];
  for (const task of batch) {
    try {
      out.push({ ok: true, result: await backendFor(task).measure(task) });
    } catch (err) {
      if (isFatalTaskError(err)) throw err;
      out.push({ ok: false, error: errorText(err) });
    }
  }
  return out;
}

serveTasks<MeasureTask | MeasureBatch, MeasureResult | MeasureBatchReply>((task) =>
  isMeasureBatch(task) ? measureBatch(task) : backendFor(task).measure(task),
);
