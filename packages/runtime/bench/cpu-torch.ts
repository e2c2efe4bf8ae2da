/**
 * PyTorch on the CPU as `pnpm bench:cpu`'s second reference (cpu_torch_reference.py): oneDNN's
 * convolutions and pooling are what users of these operators would pick, where NumPy is no one's
 * choice. The interpreter is bench-python.ts's (the pinned CPU wheel in .venv-bench, made by
 * scripts/bench-venv.sh, or Debian's python3-torch=1.13.1+dfsg-4 for /usr/bin/python3); the benchmark
 * skips the column with a line saying why when it cannot import torch.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { BENCH_VENV_INSTALL, benchPython } from "./bench-python.js";

const PYTHON = benchPython();
const TORCH_SCRIPT = fileURLToPath(new URL("./cpu_torch_reference.py", import.meta.url));

/** The install lines the skip message names (pinned): the venv's CPU wheel, or Debian bookworm's package. */
export const TORCH_INSTALL = `${BENCH_VENV_INSTALL}, or apt-get install -y --no-install-recommends python3-torch=1.13.1+dfsg-4`;

export type TorchInfo =
  | { readonly available: true; readonly version: string; readonly defaultThreads: number; readonly mkldnn: boolean }
  | { readonly available: false; readonly why: string };

/** Whether the benchmark's Python imports torch, with its version, default threads and oneDNN (mkldnn) support. */
export function torchInfo(): TorchInfo {
  const r = spawnSync(PYTHON, [TORCH_SCRIPT, "--version"], { encoding: "utf8" });
  const line = r.stdout.trim().split("\n").at(-1) ?? "";
  try {
    const parsed = JSON.parse(line) as { version?: string; threads?: number; mkldnn?: boolean; unavailable?: string };
    if (r.status === 0 && parsed.version !== undefined && parsed.threads !== undefined)
      return { available: true, version: parsed.version, defaultThreads: parsed.threads, mkldnn: parsed.mkldnn === true };
    return { available: false, why: parsed.unavailable ?? `exit ${r.status}` };
  } catch {
    return { available: false, why: (r.stderr || r.error?.message || `exit ${r.status}`).trim().split("\n").at(-1) ?? "?" };
  }
}

export interface TorchResult {
  readonly ms: number;
  /** The formulation and thread setting that was faster, e.g. "F.conv2d, 2 threads". */
  readonly variant: string;
  readonly threads: number;
}

function runOnce(cases: readonly Record<string, unknown>[], env: NodeJS.ProcessEnv): ({ ms: number; variant: string; threads: number } | undefined)[] {
  const out = execFileSync(PYTHON, [TORCH_SCRIPT], { input: JSON.stringify(cases), encoding: "utf8", maxBuffer: 16 << 20, env });
  return out
    .trim()
    .split("\n")
    .map((l) => {
      const r = JSON.parse(l) as { ms: number | null; variant?: string; threads?: number };
      return r.ms === null ? undefined : { ms: r.ms, variant: r.variant ?? "?", threads: r.threads ?? 0 };
    });
}

/**
 * PyTorch with every core (cpu_torch_reference.py sets the threads: Debian's torch 1.13 starts with
 * one on the 2-core reference machine) and with one thread (as NumPy: on a loaded machine a thread
 * team can collapse, so the faster is the reference); undefined for an operator it has no reference for.
 */
export function runTorch(cases: readonly Record<string, unknown>[]): (TorchResult | undefined)[] {
  const single = runOnce(cases, { ...process.env, OMP_NUM_THREADS: "1" });
  // TESSERA_BENCH_CLOCK=cpu (bench:cpu --clock cpu): one thread and CPU time only.
  const team = process.env.TESSERA_BENCH_CLOCK === "cpu" ? single : runOnce(cases, process.env);
  return team.map((t, i) => {
    const s = single[i];
    if (t === undefined || s === undefined) return undefined;
    const best = s.ms < t.ms ? s : t;
    return { ms: best.ms, variant: `${best.variant}, ${best.threads} thread${best.threads === 1 ? "" : "s"}`, threads: best.threads };
  });
}
