/**
 * The CUDA generator's mbarrier and bulk-copy ops (cuda/mbarrier.ts): the producer / consumer
 * pipeline emits the PTX in its order, the helpers only when used, and bad input is refused with
 * the op named.
 */
import { loweredBulkCopyScript } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { codegenCuda } from "../../src/cuda/index.js";
import { CodegenError } from "../../src/cuda/errors.js";
import { bulkCopyModule } from "./mbarrier-kernels.js";
import { moduleFromScript } from "./lowered-kernel.js";

describe("mbarriers and bulk copies in CUDA C", () => {
  it("emits the pipeline's ops in program order with the shared mbarrier array", () => {
    const { source } = codegenCuda(bulkCopyModule({ stages: 3 }));
    expect(source).toMatch(/__shared__ __align__\(32\) unsigned long long bars\[6\];/);
    const body = source.slice(source.indexOf("__global__"));
    const order = [
      "tessera_mbarrier_init(bars + i",
      "__syncthreads();",
      "tessera_mbarrier_wait_parity(bars + (",
      "tessera_mbarrier_arrive_expect_tx(bars + (",
      "tessera_cp_async_bulk(A_shared + (",
      "tessera_mbarrier_wait_parity(bars + (",
      "tessera_mbarrier_arrive(bars + (",
    ];
    let at = 0;
    for (const s of order) {
      const next = body.indexOf(s, at);
      expect(next, `${s} after offset ${at}`).toBeGreaterThanOrEqual(at);
      at = next + s.length;
    }
    expect(source).toContain("mbarrier.try_wait.parity.shared::cta.b64");
    expect(source).toContain("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes");
    expect(source).toContain("fence.mbarrier_init.release.cluster");
  });

  it("a cp.async producer warp arrives with cp.async.mbarrier.arrive.noinc; a proxy fence is one instruction", () => {
    const { source } = codegenCuda(bulkCopyModule({ producer: "cp.async" }));
    const body = source.slice(source.indexOf("__global__"));
    expect(body).toMatch(/tessera_cp_async_16\(A_shared \+ .*\n\s*\}\n\s*tessera_cp_async_mbarrier_arrive\(bars \+ \(k % 2\)\);/);
    expect(body).toContain("tessera_mbarrier_init(bars + i, 32);");
    expect(source).toContain("cp.async.mbarrier.arrive.noinc.shared::cta.b64");
    const fenced = loweredBulkCopyScript().replace(/( +)(for j in range)/, "$1T.ptx.fence_proxy_async()\n$1$2");
    expect(codegenCuda(moduleFromScript(fenced, "nvidia/h100")).source).toMatch(/tessera_fence_proxy_async\(\);\n\s*for \(int j/);
  });

  it("defines the helpers only for kernels that use them", () => {
    const plain = moduleFromScript(
      loweredBulkCopyScript()
        .replace(/^ {4}if threadIdx_x == 0:\n(?: {8}.*\n)+/gm, "")
        .replace(/^ {4}if threadIdx_x >= 32:\n(?: {8}.*\n)+/m, ""),
      "nvidia/h100",
    );
    expect(codegenCuda(plain).source).not.toContain("tessera_mbarrier");
  });

  it("refuses targets before sm_90, naming the ops", () => {
    expect(() => codegenCuda(bulkCopyModule({}, "nvidia/a100"))).toThrow(CodegenError);
    expect(() => codegenCuda(bulkCopyModule({}, "nvidia/a100"))).toThrow(/cp\.async\.bulk.*sm_90.*sm_80/);
  });

  it("refuses a bulk copy that is not whole 16-byte granules, and a wrong argument count", () => {
    const odd = loweredBulkCopyScript().replace(/, 512, T\.tvm_access_ptr/, ", 500, T.tvm_access_ptr");
    expect(() => codegenCuda(moduleFromScript(odd, "nvidia/h100"))).toThrow(
      /T\.ptx\.cp_async_bulk: a bulk copy moves a positive multiple of 16 bytes, got 500/,
    );
    const short = loweredBulkCopyScript().replace(/(T\.ptx\.mbarrier_arrive\(.*)\)$/m, "$1, 1)");
    expect(() => codegenCuda(moduleFromScript(short, "nvidia/h100"))).toThrow(/T\.ptx\.mbarrier_arrive takes 1 arguments, got 2/);
  });

  it("refuses an mbarrier pointer of another element type", () => {
    const wrong = loweredBulkCopyScript().replace(
      'T.ptx.mbarrier_arrive(T.tvm_access_ptr(T.type_annotation("uint64")',
      'T.ptx.mbarrier_arrive(T.tvm_access_ptr(T.type_annotation("float32")',
    );
    expect(() => codegenCuda(moduleFromScript(wrong, "nvidia/h100"))).toThrow(/must point to a uint64 mbarrier, got a T\.tvm_access_ptr of float32/);
  });
});
