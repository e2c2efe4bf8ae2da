/**
 * The tf32 and 3xTF32 programs of the mma.sync space compile with nvcc for sm_90a and sm_80 without
 * spills or a stack frame (`-Xptxas -v`): at 2048³ the configuration of the hand kernels
 * (TF32X3_PARAMS: 2×4 warps of 4×2 tiles, a 128×128 block tile, 16-byte fetches, two stages) and
 * the 3xTF32 configuration bench:tune's searches found best (4 warps of 2×2 tiles), and the wgmma
 * spaces' 128×128 tile (two warpgroups, N 128, 3 stages; sm_90a only; A from shared memory and A
 * split in registers) and the tf32 wgmma spaces' 128×256 tile (N 256, 3 stages), gemm+ReLU+add.
 * Skipped where nvcc is absent; in `pnpm test:slow`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { codegenCuda } from "@tessera/codegen";
import { gemmReluAdd } from "@tessera/ir";
import { nvccStatus } from "@tessera/runtime";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { type Fp32Precision, replayWithPostprocs, withFp32Precision } from "../../src/index.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { spaceOf, withForcedDecisions } from "./helpers.js";

const nvcc = await nvccStatus();
const N = 2048;

/** The forced decisions: i's and j's [blocks, tiles a block] and [warps, tiles a warp] (tf32: also the k chunk), fetch widths, pipeline lag, unroll. */
const CONFIGS: readonly { name: string; precision: Fp32Precision; tiles: number[][]; choices: number[]; space?: number; archs?: readonly string[] }[] = [
  {
    name: "tf32, 128×128 blocks of 2×4 warps",
    precision: "tf32",
    tiles: [
      [16, 8],
      [2, 4],
      [16, 8],
      [4, 2],
      [64, 4],
    ],
    choices: [4, 4, 1, 0],
  },
  {
    name: "3xTF32, 128×128 blocks of 2×4 warps",
    precision: "3xtf32",
    tiles: [
      [16, 8],
      [2, 4],
      [16, 8],
      [4, 2],
    ],
    choices: [4, 4, 1, 0],
  },
  {
    name: "3xTF32, 64×64 blocks of 2×2 warps",
    precision: "3xtf32",
    tiles: [
      [32, 4],
      [2, 2],
      [32, 4],
      [2, 2],
    ],
    choices: [4, 4, 1, 0],
  },
  // The wgmma space (sm_90a only): N 128, two warpgroups (a 128×128 tile: the chunk and main accumulators 64 registers each), 3 stages.
  { name: "3xTF32 wgmma, 128×128 tiles, 3 stages", precision: "3xtf32", tiles: [], choices: [128, 8, 1, 0], space: 1, archs: ["sm_90a"] },
  // The same with A split in registers (space 2): the fragments of two k steps (8 + 8 registers) beside the two accumulators.
  { name: "3xTF32 wgmma, A in registers, 128×128 tiles, 3 stages", precision: "3xtf32", tiles: [], choices: [128, 8, 1, 0], space: 2, archs: ["sm_90a"] },
  // The tf32 wgmma spaces: the hand kernel's 128×256 tile (two warpgroups, N 256, 3 stages), A from shared memory and A rounded in registers.
  { name: "tf32 wgmma, 128×256 tiles, 3 stages", precision: "tf32", tiles: [], choices: [256, 8, 1, 0], space: 1, archs: ["sm_90a"] },
  { name: "tf32 wgmma, A in registers, 128×256 tiles, 3 stages", precision: "tf32", tiles: [], choices: [256, 8, 1, 0], space: 2, archs: ["sm_90a"] },
];

describe("the tf32 and 3xTF32 programs", () => {
  it.skipIf(!nvcc.ok).each(CONFIGS)(
    `$name: nvcc (sm_90a; also sm_80 for mma.sync), no spills${nvcc.ok ? "" : ` (skipped: ${nvcc.reason})`}`,
    async ({ precision, tiles, choices, space: spaceIndex = 0, archs = ["sm_90a", "sm_80"] }) => {
      const space = spaceOf(withFp32Precision(gemmReluAdd(N).func, precision));
      const out = replayWithPostprocs(space.ctx, withForcedDecisions(space.spaces[spaceIndex]!.trace, tiles, choices), space.gen.postprocs, { seed: 1 });
      if (!out.ok) throw new Error(`${out.reason}: ${out.detail}`);
      const source = codegenCuda(loweredModuleFor(out.sch.func)!).source;
      expect(source).toContain(spaceIndex > 0 ? "wgmma.mma_async" : precision === "tf32" ? "mma.sync.aligned.m16n8k8" : "tessera_mma_m16n8k8_tf32x3");
      const dir = mkdtempSync(join(tmpdir(), "tessera-fp32-precision-nvcc-"));
      try {
        writeFileSync(join(dir, "k.cu"), source);
        for (const arch of archs) {
          const r = await execa("nvcc", ["-cubin", `-arch=${arch}`, "-O3", "-Xptxas", "-v", "-o", join(dir, `k-${arch}.cubin`), join(dir, "k.cu")], {
            all: true,
            reject: false,
          });
          expect(r.exitCode, r.all).toBe(0);
          const reports = [...String(r.all).matchAll(/(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads/g)];
          expect(reports.length, r.all).toBeGreaterThan(0);
          for (const m of reports) expect([m[1], m[2], m[3]], `${arch}: ${r.all}`).toEqual(["0", "0", "0"]);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
