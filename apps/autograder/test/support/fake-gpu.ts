/**
 * The fake GPU of the isolation tests, seen from the test: a scratch folder for its mode and pids
 * (fake-gpu-work-backend.ts), and the check that every worker process it started is gone — exited
 * and reaped, not a zombie.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { GpuWorkerOptions } from "../../src/gpu/worker/gpu-worker.js";

export const FAKE_GPU_BACKEND = fileURLToPath(new URL("./fake-gpu-work-backend.ts", import.meta.url));

export type FakeGpuMode = "ok" | "crash" | "hang" | "sticky";

export class FakeGpu {
  readonly dir = mkdtempSync(join(tmpdir(), "tessera-fake-gpu-"));

  /** GpuWorker options that run this fake in the worker process. */
  options(extra: GpuWorkerOptions = {}): GpuWorkerOptions {
    return { ...extra, backendModule: FAKE_GPU_BACKEND, env: { ...extra.env, TESSERA_FAKE_GPU_DIR: this.dir } };
  }

  set mode(mode: FakeGpuMode) {
    this.modes(mode);
  }

  /** One mode per numerics request, in order; the last one stays. */
  modes(...modes: FakeGpuMode[]): void {
    writeFileSync(join(this.dir, "mode"), modes.join("\n"));
  }

  /** Pids of the worker processes started so far. */
  pids(): number[] {
    const file = join(this.dir, "pids");
    if (!existsSync(file)) return [];
    return readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map(Number);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * "running", "zombie" or "gone" (the process table has no entry: it exited and was reaped). Without
 * /proc (macOS) a zombie counts as running: it is still in the table.
 */
export function processState(pid: number): "running" | "zombie" | "gone" {
  if (!existsSync("/proc/self/stat")) {
    try {
      process.kill(pid, 0);
      return "running";
    } catch {
      return "gone";
    }
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return "gone";
  }
  // pid (comm) state ...: comm may hold spaces and parentheses, the state follows the last ")".
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "Z" ? "zombie" : "running";
}

/**
 * Waits until none of `pids` is in the process table, up to `limitMs`; returns the state of each
 * one still there. A killed child is reaped when its exit reaches the event loop, so this yields.
 */
export async function lingering(pids: readonly number[], limitMs = 10_000): Promise<string[]> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const left = pids.map((pid) => ({ pid, state: processState(pid) })).filter((p) => p.state !== "gone");
    if (left.length === 0 || Date.now() > deadline) return left.map((p) => `${p.pid}: ${p.state}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
