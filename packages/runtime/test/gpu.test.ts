import { describe, it } from "vitest";
import { cuda } from "@tessera/runtime";
import { gpuChecks } from "../scripts/gpu-checks.js";

/** Diagnostics print only with TESSERA_TEST_VERBOSE=1 (README, Testing). */
const VERBOSE = process.env.TESSERA_TEST_VERBOSE === "1";

const title = cuda.available() ? "GPU (CUDA device present)" : `GPU (SKIPPED: CUDA unavailable — ${cuda.unavailableReason() ?? "unknown"})`;

describe.runIf(cuda.available())(title, () => {
  for (const check of gpuChecks) {
    it(check.name, async () => {
      await check.run((line) => {
        if (VERBOSE) console.log(`[${check.name}] ${line}`);
      });
    });
  }
});
