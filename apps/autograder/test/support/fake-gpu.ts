/**
 * The fake GPU of the isolation tests, seen from the test: a scratch folder for its mode and the
 * pids of the processes it ran in (fake-gpu-work-backend.ts).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { GpuWorkerOptions } from "../../src/gpu/worker/gpu-worker.js";
import { prebuiltBundle } from "../../../../scripts/fast-start/prebuilt.mjs";

export const FAKE_GPU_BACKEND = fileURLToPath(new URL("./fake-gpu-work-backend.ts", import.meta.url));

/**
 * The GPU worker's child and this fake backend as one prebuilt bundle (scripts/fast-start/prebuilt.mjs):
 * each worker process the tests start runs it with plain node, not the sources through tsx (about
 * 2 CPU s a start). The child and the backend share the bundle's chunks, as under tsx they share modules.
 */
const bundle = await prebuiltBundle({
  name: "test-fake-gpu-worker",
  entry: fileURLToPath(new URL("../../src/gpu/worker/gpu-worker-child.ts", import.meta.url)),
  workers: { "fake-gpu-work-backend": FAKE_GPU_BACKEND, "dying-grader": fileURLToPath(new URL("./dying-grader.ts", import.meta.url)) },
});

/** dying-grader.ts, from the same bundle: run it with `node --conditions=@tessera/source`. */
export const DYING_GRADER_BUNDLE = bundle.workers["dying-grader"]!;

/** GpuWorker options that run the fake backend in a worker process started from the bundle. */
export const FAKE_GPU_WORKER: Pick<GpuWorkerOptions, "backendModule" | "childEntry"> = {
  backendModule: bundle.workers["fake-gpu-work-backend"]!,
  childEntry: { url: pathToFileURL(bundle.entry), typeScript: false },
};

export type FakeGpuMode = "ok" | "crash" | "hang" | "sticky";

export class FakeGpu {
  readonly dir = mkdtempSync(join(tmpdir(), "tessera-fake-gpu-"));

  /** GpuWorker options that run this fake in the worker process. */
  options(extra: GpuWorkerOptions = {}): GpuWorkerOptions {
    return { ...FAKE_GPU_WORKER, ...extra, env: { ...extra.env, TESSERA_FAKE_GPU_DIR: this.dir } };
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
