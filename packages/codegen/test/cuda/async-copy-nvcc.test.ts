/**
 * The cp.async kernels of async-copy.test.ts compile with nvcc for sm_80 and sm_90 (with the
 * shared memory they declare and no spills), and sm_75 refuses them. A few nvcc runs, so this runs
 * in `pnpm test:slow` (vitest.config.ts); skipped where nvcc is absent.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GOLDEN, asyncModule } from "./async-copy-kernels.js";
import { compileCorpusForArch, nvccAvailable } from "./corpus-ptxas.js";

const nvcc = process.env.TESSERA_NVCC ?? "nvcc";
const hasNvcc = await nvccAvailable(nvcc);

describe.skipIf(!hasNvcc)(`the cp.async kernels compile with nvcc${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-async-copy-nvcc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const modules = [...GOLDEN, { file: "async_copy_3stage_zfill_float.cu", opts: { stages: 3, lanes: 1, validElements: 250 } as const }].map((g) => ({
    label: g.file,
    file: g.file,
    module: asyncModule(g.opts),
  }));

  for (const arch of ["sm_80", "sm_90"]) {
    it(`${arch}: every kernel, with the shared memory it declares`, async () => {
      const r = await compileCorpusForArch(nvcc, dir, modules, arch);
      expect(r.exitCode, r.log).toBe(0);
      modules.forEach((m, i) => {
        const [k] = r.perModule[i]!;
        expect(k?.arch, m.label).toBe(arch);
        expect(k?.sharedBytes, m.label).toBe(m.module.kernels[0]!.sharedBytes);
        expect(k?.spillStoreBytes, m.label).toBe(0);
      });
    }, 300_000);
  }

  it("sm_75 rejects cp.async (which is why lowering refuses such targets)", async () => {
    const r = await compileCorpusForArch(nvcc, dir, modules.slice(0, 1), "sm_75");
    expect(r.exitCode).not.toBe(0);
    expect(r.log).toMatch(/cp\.async.*(sm_80|requires)/is);
  }, 300_000);
});
