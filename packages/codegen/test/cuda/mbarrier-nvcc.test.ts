/**
 * The warp-specialised bulk-copy pipeline (mbarriers, cp.async.bulk) compiles with nvcc for sm_90
 * with the shared memory it declares and no spills. Runs in `pnpm test:slow`; skipped where nvcc
 * is absent.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compilationPool, nvccAvailable } from "./corpus-ptxas.js";
import { bulkCopyModule } from "./mbarrier-kernels.js";
import { tmaWgmmaGemmScript, tmaWgmmaTf32Plan, tmaWgmmaTf32RegisterBScript } from "@tessera/corpus";
import { parsePrimFunc } from "@tessera/ir";
import { moduleFromKernelFunc, moduleFromKernelFuncs } from "../../src/kernel-from-func.js";
import { cudaTarget } from "../../src/targets/target.js";

const nvcc = process.env.TESSERA_NVCC ?? "nvcc";
const hasNvcc = await nvccAvailable(nvcc);

describe.skipIf(!hasNvcc)(`the mbarrier kernels compile with nvcc${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-mbarrier-nvcc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // The three sm_90a groups below compile in one nvcc run (those with the same headers as one unit).
  const nvccRuns = compilationPool(nvcc, dir);

  const pipelines = (["bulk", "cp.async"] as const).flatMap((producer) =>
    [2, 4].map((stages) => {
      const name = `bulk_copy_${producer === "bulk" ? "tma" : "cp_async"}_${stages}`;
      return { label: name, file: `${name}.cu`, module: bulkCopyModule({ stages, producer, name }) };
    }),
  );
  const pipelinesCompiled = nvccRuns.add(pipelines, ["sm_90"]);
  it("sm_90: the producer / consumer pipelines (a bulk-copy thread, a cp.async warp)", async () => {
    const modules = pipelines;
    const r = await pipelinesCompiled("sm_90");
    expect(r.exitCode, r.log).toBe(0);
    modules.forEach((m, i) => {
      const [k] = r.perModule[i]!;
      expect(k?.sharedBytes, m.label).toBe(m.module.kernels[0]!.sharedBytes);
      expect(k?.spillStoreBytes, m.label).toBe(0);
    });
  }, 300_000);

  const tmaVariants = {
    tma: {},
    tma_r: { maxRegisters: { producer: 40, consumer: 232 } },
    tma_p: { maxRegisters: { producer: 40, consumer: 232 }, groupRows: 8, persistentBlocks: 132 },
    tma_wp: { maxRegisters: { producer: 40, consumer: 232 }, groupRows: 8, persistentBlocks: 132, consumerRows: 128 },
  } as const;
  const tmaGemms = Object.entries(tmaVariants).map(([k, o]) => ({
    label: k,
    file: `wgmma_${k}.cu`,
    module: moduleFromKernelFunc(parsePrimFunc(tmaWgmmaGemmScript(4096, { stages: 4, name: `wgmma_${k}`, ...o })), { target: cudaTarget("nvidia/h100") }),
  }));
  const tmaGemmsCompiled = nvccRuns.add(tmaGemms, ["sm_90a"]);
  it("sm_90a: the TMA wgmma GEMM (plain, setmaxnreg, persistent, 128-row consumers) without spills, to the 2-D tensor copy and setmaxnreg", async () => {
    const modules = tmaGemms;
    const r = await tmaGemmsCompiled("sm_90a");
    expect(r.exitCode, r.log).toBe(0);
    modules.forEach((m, i) => {
      const [k] = r.perModule[i]!;
      expect(k?.spillStoreBytes, m.label).toBe(0);
      expect(k?.stackFrameBytes, m.label).toBe(0);
      const ptx = r.ptxOf(i);
      // Five loads a stage, three with 128-row consumers (nvcc may unroll the persistent kernel's stage loop).
      const loads = ptx.match(/cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes/g)?.length ?? 0;
      const perStage = m.label === "tma_wp" ? 3 : 5;
      expect(loads > 0 && loads % perStage === 0, `${m.label}: ${loads} TMA loads in the PTX`).toBe(true);
      expect(ptx.includes("setmaxnreg.inc.sync.aligned.u32 232"), m.label).toBe(m.label !== "tma");
    });
  }, 300_000);

  const tf32Variants = {
    tf32: {},
    tf32_wp: { maxRegisters: { producer: 40, consumer: 232 }, groupRows: 8, persistentBlocks: 132, consumerRows: 128 },
  } as const;
  const tf32Gemms = Object.entries(tf32Variants).map(([k, o]) => ({
    label: k,
    file: `wgmma_tma_${k}.cu`,
    module: moduleFromKernelFuncs(tmaWgmmaTf32Plan(4096, { stages: 4, name: `wgmma_tma_${k}`, ...o }), { target: cudaTarget("nvidia/h100") }),
  }));
  const tf32GemmsCompiled = nvccRuns.add(tf32Gemms, ["sm_90a"]);
  it("sm_90a: the TMA tf32 GEMM (plain and persistent 128-row consumers) and its Bᵀ pre-pass without spills, to m64nNk8 tf32 wgmmas", async () => {
    const modules = tf32Gemms;
    const r = await tf32GemmsCompiled("sm_90a");
    expect(r.exitCode, r.log).toBe(0);
    modules.forEach((m, i) => {
      const kernels = r.perModule[i]!;
      expect(kernels.length, m.label).toBe(2);
      for (const k of kernels) {
        expect(k.spillStoreBytes, `${m.label} ${k.kernel}`).toBe(0);
        expect(k.stackFrameBytes, `${m.label} ${k.kernel}`).toBe(0);
      }
      const ptx = r.ptxOf(i);
      const n = m.label === "tf32" ? 256 : 128;
      expect(ptx, m.label).toContain(`wgmma.mma_async.sync.aligned.m64n${n}k8.f32.tf32.tf32`);
      expect(ptx.includes("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"), m.label).toBe(true);
    });
  }, 300_000);

  const registerBVariants = { tf32_rb: {}, tf32_rbp: { persistentBlocks: 132 } } as const;
  const registerBGemms = Object.entries(registerBVariants).map(([label, o]) => ({
    label,
    file: `wgmma_tma_${label}.cu`,
    module: moduleFromKernelFunc(parsePrimFunc(tmaWgmmaTf32RegisterBScript(4096, { stages: 4, groupRows: 8, name: `wgmma_tma_${label}`, ...o })), {
      target: cudaTarget("nvidia/h100"),
    }),
  }));
  const registerBCompiled = nvccRuns.add(registerBGemms, ["sm_90a"]);
  it("sm_90a: the TMA tf32 GEMM with B from registers (no pre-pass; plain and persistent) without spills, its fragments fed to the register-A tf32 wgmma", async () => {
    const modules = registerBGemms;
    const r = await registerBCompiled("sm_90a");
    expect(r.exitCode, r.log).toBe(0);
    modules.forEach((m, i) => {
      const [k] = r.perModule[i]!;
      expect(k?.spillStoreBytes, m.label).toBe(0);
      expect(k?.stackFrameBytes, m.label).toBe(0);
      expect(r.ptxOf(i), m.label).toMatch(/wgmma\.mma_async\.sync\.aligned\.m64n256k8\.f32\.tf32\.tf32 \{/);
      expect(r.ptxOf(i), m.label).toContain("cvt.rna.tf32.f32");
    });
  }, 300_000);
});
