/**
 * Entry of the LocalRunner's child process (bundled as ms-runner-child.mjs): measures one
 * candidate per task with the backend named by TESSERA_RUNNER_BACKEND (a module URL exporting
 * `backend`), by default the GPU one. The parent kills and restarts this process when a
 * candidate crashes it or outlives its time limit.
 */
import { pathToFileURL } from "node:url";
import { serveTasks } from "./isolation/serve.js";
import type { MeasureBackend, MeasureResult, MeasureTask } from "./measure-backend.js";

async function loadBackend(): Promise<MeasureBackend> {
  const named = process.env.TESSERA_RUNNER_BACKEND;
  const module: { backend?: MeasureBackend } =
    named !== undefined && named.length > 0 ? await import(named.startsWith("file:") ? named : pathToFileURL(named).href) : await import("./cuda-backend.js");
  if (typeof module.backend?.measure !== "function")
    throw new Error(`the runner backend ${named ?? "cuda-backend"} exports no \`backend\` with a measure() method`);
  return module.backend;
}

const backend = await loadBackend();
serveTasks<MeasureTask, MeasureResult>((task) => backend.measure(task));
