/**
 * The fake GPU of the isolation tests, seen from the test: a scratch folder for its mode and the
 * pids of the processes it ran in (fake-gpu-work-backend.ts).
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
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map(Number);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
