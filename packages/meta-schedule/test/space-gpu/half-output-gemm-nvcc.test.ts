/**
 * The fp16-output GEMM's programs of both tensor-core spaces compile with nvcc (the wgmma one for
 * sm_90a, with TMA loads): the float32→float16 store helper is valid CUDA C beside wgmma's and
 * mma.sync's. Skipped where nvcc is absent; in `pnpm test:slow`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codegenCuda } from "@tessera/codegen";
import { halfOutputGemm } from "@tessera/corpus";
import { nvccStatus } from "@tessera/runtime";
import { describe, expect, it } from "vitest";
import { LocalBuilder, replayWithPostprocs } from "../../src/index.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { spaceOf, withForcedDecisions } from "./helpers.js";

const nvcc = await nvccStatus();

describe("the fp16-output GEMM's programs", () => {
  it.skipIf(!nvcc.ok)(
    `compile with nvcc: wgmma (N 256, 8 warps, 3 stages, TMA; sm_90a) and mma.sync${nvcc.ok ? "" : ` (skipped: ${nvcc.reason})`}`,
    async () => {
      const space = spaceOf(halfOutputGemm(256));
      const wgmma = replayWithPostprocs(space.ctx, withForcedDecisions(space.spaces[1]!.trace, [], [256, 8, 1, 1, 0]), space.gen.postprocs, { seed: 1 });
      const mma = [1, 2, 3, 4, 5]
        .map((seed) => replayWithPostprocs(space.ctx, space.spaces[0]!.trace, space.gen.postprocs, { seed, freshDecisions: true }))
        .find((o) => o.ok);
      expect(wgmma.ok && mma?.ok).toBe(true);
      if (!wgmma.ok || mma === undefined || !mma.ok) return;
      for (const func of [wgmma.sch.func, mma.sch.func]) expect(codegenCuda(loweredModuleFor(func)!).source).toContain("tessera_mma_store_16x16_f32_to_f16(");
      const cacheDir = mkdtempSync(join(tmpdir(), "tessera-half-output-nvcc-"));
      const builder = new LocalBuilder({ maxWorkers: 0, compile: "nvcc", cacheDir, timeoutSec: 300 });
      try {
        const built = await builder.build([wgmma.sch.func, mma.sch.func].map((func) => ({ func, target: space.ctx.target })));
        expect(built.map((b) => (b.ok ? "ok" : b.error))).toEqual(["ok", "ok"]);
      } finally {
        await builder.dispose();
        rmSync(cacheDir, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
