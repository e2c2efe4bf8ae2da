/**
 * Entry of the grader's GPU worker process (bundled as grade-gpu-worker.mjs): owns the CUDA context
 * and answers one request at a time with the backend named by TESSERA_GPU_WORKER_BACKEND (a module
 * exporting `backend`), by default the local GPU. A CUDA error is answered as a fault, after which
 * the grader kills this process; a hang or a crash is the grader's watchdog's business.
 */
import { pathToFileURL } from "node:url";
import { parsePrimFunc } from "@tessera/ir";
import { serveTasks } from "@tessera/meta-schedule/isolation";
import { assignmentBinding } from "../../assignment.js";
import { cudaFaultOf } from "../fault.js";
import { GPU_WORKER_BACKEND_ENV } from "./backend-env.js";
import type { GpuWorkReply, GpuWorkRequest } from "./protocol.js";
import type { GpuWorkBackend } from "./work-backend.js";

async function loadBackend(): Promise<GpuWorkBackend> {
  const named = process.env[GPU_WORKER_BACKEND_ENV];
  const module: { backend?: GpuWorkBackend } =
    named !== undefined && named.length > 0
      ? await import(named.startsWith("file:") ? named : pathToFileURL(named).href)
      : await import("./cuda-work-backend.js");
  const b = module.backend;
  if (typeof b?.numerics !== "function" || typeof b.time !== "function")
    throw new Error(`the GPU worker backend ${named ?? "cuda-work-backend"} exports no \`backend\` with numerics() and time()`);
  return b;
}

async function answer(backend: GpuWorkBackend, req: GpuWorkRequest): Promise<GpuWorkReply> {
  if (req.kind === "ping") return { kind: "pong", pid: process.pid };
  const func = parsePrimFunc(req.script, { fileName: "<scheduled function>" });
  const binding = assignmentBinding(req.assignment);
  try {
    if (req.kind === "numerics") return { kind: "numerics", outcome: await backend.numerics(func, binding, req.settings, req.seed) };
    return { kind: "time", outcome: await backend.time(func, binding, req.timing) };
  } catch (err) {
    const fault = cudaFaultOf(err, req.kind === "numerics" ? "running the kernels" : "timing the kernels");
    if (fault !== undefined) return { kind: "fault", fault: fault.fault };
    throw err;
  }
}

const backend = await loadBackend();
serveTasks<GpuWorkRequest, GpuWorkReply>((req) => answer(backend, req));
