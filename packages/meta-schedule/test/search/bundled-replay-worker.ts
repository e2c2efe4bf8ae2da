/**
 * The search's replay worker bundled into one file, as the GPU bundle ships it
 * (`ms-replay-worker.mjs`, apps/autograder/scripts/bundle-gpu.ts), for tests that start many
 * worker threads: a thread started from the TypeScript sources loads about 600 modules through
 * tsx's loader, about 4 CPU s per start on two cores, and the bundle about 1 CPU s
 * (docs/benchmarks/ci-time.md, session 17). The replies are the same: the bundle is the same code.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import type { EntryPoint } from "../../src/isolation/entry-point.js";

const WORKER_SOURCE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "search", "replay-worker.ts");

export interface BundledWorker {
  readonly entry: EntryPoint;
  /** Removes the bundle's folder (after every pool started from it is disposed). */
  dispose(): void;
}

/** Bundles the replay worker into a fresh temporary folder. */
export async function bundleReplayWorker(): Promise<BundledWorker> {
  const dir = mkdtempSync(join(tmpdir(), "tessera-replay-worker-"));
  const outfile = join(dir, "replay-worker.mjs");
  await build({
    entryPoints: [WORKER_SOURCE],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    conditions: ["@tessera/source"],
    logLevel: "error",
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  });
  return {
    entry: { url: pathToFileURL(outfile), typeScript: false },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
