/**
 * The warp-specialised bulk-copy pipeline (mbarriers, cp.async.bulk) compiles with nvcc for sm_90
 * with the shared memory it declares and no spills. Runs in `pnpm test:slow`; skipped where nvcc
 * is absent.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileCorpusForArch, nvccAvailable } from "./corpus-ptxas.js";
import { bulkCopyModule } from "./mbarrier-kernels.js";

const nvcc = process.env.TESSERA_NVCC ?? "nvcc";
const hasNvcc = await nvccAvailable(nvcc);

describe.skipIf(!hasNvcc)(`the mbarrier kernels compile with nvcc${hasNvcc ? "" : " (SKIPPED: nvcc not found; set TESSERA_NVCC)"}`, () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-mbarrier-nvcc-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("sm_90: the producer / consumer pipelines (a bulk-copy thread, a cp.async warp)", async () => {
    const modules = (["bulk", "cp.async"] as const).flatMap((producer) =>
      [2, 4].map((stages) => {
        const name = `bulk_copy_${producer === "bulk" ? "tma" : "cp_async"}_${stages}`;
        return { label: name, file: `${name}.cu`, module: bulkCopyModule({ stages, producer, name }) };
      }),
    );
    const r = await compileCorpusForArch(nvcc, dir, modules, "sm_90");
    expect(r.exitCode, r.log).toBe(0);
    modules.forEach((m, i) => {
      const [k] = r.perModule[i]!;
      expect(k?.sharedBytes, m.label).toBe(m.module.kernels[0]!.sharedBytes);
      expect(k?.spillStoreBytes, m.label).toBe(0);
    });
  }, 300_000);
});
