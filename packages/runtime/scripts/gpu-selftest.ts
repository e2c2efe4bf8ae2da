/**
 * GPU self-test: runs scripts/gpu-checks.ts in order and prints PASS/FAIL per check.
 * Meant to be bundled (`pnpm bundle:gpu`) and run on a GPU machine without a Node install:
 *   .device-bundle/run.sh gpu-selftest [--json out.json]
 * Exit status 0 when every check passed.
 */
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { cuda, loadNative, nvrtcStatus } from "../src/index.js";
import { gpuChecks } from "./gpu-checks.js";

interface Outcome {
  name: string;
  ok: boolean;
  ms: number;
  notes: string[];
  error?: string;
}

async function main(): Promise<number> {
  const jsonAt = process.argv.indexOf("--json");
  const jsonPath = jsonAt >= 0 ? process.argv[jsonAt + 1] : undefined;
  const load = loadNative();
  console.log(`addon: ${load.ok ? load.path : `NOT LOADED: ${load.reason}`}`);
  console.log(`cuda.available(): ${cuda.available()}${cuda.available() ? "" : ` — ${cuda.unavailableReason()}`}`);
  const nv = nvrtcStatus();
  console.log(`nvrtc: ${nv.ok ? nv.version : `unavailable — ${nv.reason}`}`);
  const results: Outcome[] = [];
  if (!cuda.available()) {
    console.log("SKIP: no CUDA device; nothing to check");
  } else {
    for (const check of gpuChecks) {
      const notes: string[] = [];
      const t0 = performance.now();
      try {
        await check.run((line) => notes.push(line));
        results.push({ name: check.name, ok: true, ms: performance.now() - t0, notes });
      } catch (e) {
        const error = e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ""}` : String(e);
        results.push({ name: check.name, ok: false, ms: performance.now() - t0, notes, error });
      }
      const r = results[results.length - 1] as Outcome;
      console.log(`${r.ok ? "PASS" : "FAIL"} ${r.name} (${r.ms.toFixed(0)} ms)`);
      for (const n of r.notes) console.log(`     ${n}`);
      if (r.error !== undefined) console.log(`     ${r.error.split("\n").slice(0, 8).join("\n     ")}`);
    }
  }
  const failed = results.filter((r) => !r.ok).length;
  console.log(`\n${results.length - failed} passed, ${failed} failed`);
  if (jsonPath !== undefined) {
    writeFileSync(jsonPath, JSON.stringify({ device: cuda.available() ? cuda.device(0).name : null, driver: cuda.driverVersionString(), results }, null, 2));
  }
  return failed === 0 && cuda.available() ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(2);
  },
);
