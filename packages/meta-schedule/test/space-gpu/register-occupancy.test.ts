/**
 * The register file's sub-partitions: how many blocks a thread's registers let an SM hold, and the
 * registers ptxas gives a thread under `__launch_bounds__(threads, minBlocks)` — checked against
 * ptxas itself where nvcc is installed (CI has it), and the derived launch bounds built on them.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nvccStatus } from "@tessera/runtime";
import { execa } from "execa";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blocksPerSMForRegisters } from "../../src/postproc/register-estimate.js";
import { MAX_REGISTERS_PER_THREAD, blocksPerSMByRegisters, registerCapForMinBlocks } from "../../src/support/register-occupancy.js";

const REGISTERS_PER_SM = 65536;
const nvcc = await nvccStatus();

describe("blocks per SM by registers", () => {
  it("counts warps per sub-partition, not registers per SM", () => {
    // 200 registers (6,400 a warp): two warps a sub-partition, eight an SM — four blocks of 64 threads,
    // though five would take only 64,000 of the SM's 65,536 registers.
    expect(blocksPerSMByRegisters(200, 64, REGISTERS_PER_SM)).toBe(4);
    expect(blocksPerSMByRegisters(200, 128, REGISTERS_PER_SM)).toBe(2);
    // 128 registers: four warps a sub-partition.
    expect(blocksPerSMByRegisters(128, 128, REGISTERS_PER_SM)).toBe(4);
    expect(blocksPerSMByRegisters(128, 96, REGISTERS_PER_SM)).toBe(5);
    // More than 255 are allocated as 255 (spilled), a block too large for the registers holds none.
    expect(blocksPerSMByRegisters(400, 64, REGISTERS_PER_SM)).toBe(4);
    expect(blocksPerSMByRegisters(255, 1024, REGISTERS_PER_SM)).toBe(0);
    // The derived launch bounds keep at least one block.
    expect(blocksPerSMForRegisters(255, 1024, REGISTERS_PER_SM, 2048)).toBe(1);
  });

  it("a block count derived from a thread's registers leaves ptxas at least those registers", () => {
    fc.assert(
      fc.property(fc.integer({ min: 16, max: MAX_REGISTERS_PER_THREAD }), fc.integer({ min: 1, max: 32 }), (registers, warps) => {
        const threads = warps * 32;
        const blocks = blocksPerSMByRegisters(registers, threads, REGISTERS_PER_SM);
        fc.pre(blocks >= 1);
        expect(registerCapForMinBlocks(threads, blocks, REGISTERS_PER_SM)).toBeGreaterThanOrEqual(
          Math.min(MAX_REGISTERS_PER_THREAD, Math.ceil(registers / 8) * 8),
        );
        // And one block more would not have fit at those registers.
        expect(registerCapForMinBlocks(threads, blocks + 1, REGISTERS_PER_SM)).toBeLessThan(registers);
      }),
    );
  });
});

/** Bounds to check, (threads, minBlocks), where the cap falls below what the kernel below wants. */
const BOUNDS: readonly (readonly [number, number])[] = [
  [32, 9],
  [64, 4],
  [64, 5],
  [64, 7],
  [64, 9],
  [96, 3],
  [96, 7],
  [128, 3],
  [128, 5],
  [160, 2],
  [192, 3],
  [256, 3],
  [384, 1],
  [512, 1],
];

/** A kernel whose 256 accumulators want more registers than any bound allows, under `__launch_bounds__(threads, blocks)`. */
function pressureKernel(threads: number, blocks: number): string {
  return `extern "C" __global__ void __launch_bounds__(${threads}, ${blocks}) k_${threads}_${blocks}(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  float acc[16][16];
  #pragma unroll
  for (int i = 0; i < 16; ++i)
    #pragma unroll
    for (int j = 0; j < 16; ++j) acc[i][j] = 0.0f;
  for (int k = 0; k < n; ++k) {
    float x[16], y[16];
    #pragma unroll
    for (int i = 0; i < 16; ++i) { x[i] = a[k * 4096 + i * 256 + threadIdx.x]; y[i] = b[k * 4096 + i * 256 + threadIdx.x]; }
    #pragma unroll
    for (int i = 0; i < 16; ++i)
      #pragma unroll
      for (int j = 0; j < 16; ++j) acc[i][j] += x[i] * y[j];
  }
  #pragma unroll
  for (int i = 0; i < 16; ++i)
    #pragma unroll
    for (int j = 0; j < 16; ++j) c[(i * 16 + j) * 256 + threadIdx.x] = acc[i][j];
}
`;
}

describe("ptxas's register cap under __launch_bounds__(threads, minBlocks)", () => {
  it.skipIf(!nvcc.ok)(
    `is registerCapForMinBlocks (sm_90)${nvcc.ok ? "" : ` (skipped: ${nvcc.reason})`}`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "tessera-register-cap-"));
      try {
        writeFileSync(join(dir, "k.cu"), BOUNDS.map(([t, m]) => pressureKernel(t, m)).join("\n"));
        const r = await execa("nvcc", ["-cubin", "-arch=sm_90", "-O3", "-Xptxas", "-v", "-o", join(dir, "k.cubin"), join(dir, "k.cu")], {
          all: true,
          reject: false,
        });
        expect(r.exitCode, r.all).toBe(0);
        const used = new Map<string, number>();
        let current = "";
        for (const line of String(r.all).split("\n")) {
          const fn = /Compiling entry function '(\w+)'/.exec(line);
          if (fn !== null) current = fn[1]!;
          const regs = /Used (\d+) registers/.exec(line);
          if (regs !== null) used.set(current, Number(regs[1]));
        }
        for (const [t, m] of BOUNDS)
          expect({ bounds: [t, m], registers: used.get(`k_${t}_${m}`) }).toEqual({
            bounds: [t, m],
            registers: registerCapForMinBlocks(t, m, REGISTERS_PER_SM),
          });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
