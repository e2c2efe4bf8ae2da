/**
 * cp.async in CUDA C: golden sources for pipelined copy loops (after injectPTXAsyncCopy), the
 * preamble holding only the helpers a kernel uses, and the errors. That the sources compile with
 * nvcc for sm_80 and sm_90: async-copy-nvcc.test.ts (pnpm test:slow).
 */
import { parsePrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { CodegenError } from "../../src/cuda/errors.js";
import { codegenCuda } from "../../src/cuda/index.js";
import { moduleFromKernelFunc } from "../../src/kernel-from-func.js";
import type { LoweredModule } from "../../src/lowered.js";
import { target } from "../../src/targets/target.js";
import { GOLDEN, asyncModule } from "./async-copy-kernels.js";
import { expectGolden } from "./golden.js";

function moduleFromScript(script: string): LoweredModule {
  return moduleFromKernelFunc(parsePrimFunc(script), { target: target("nvidia/h100") });
}

describe("cp.async in CUDA C", () => {
  for (const g of GOLDEN) {
    it(`${g.file}: cp.async per copy, commit_group after each producer, wait_group then __syncthreads before each consumer`, () => {
      expectGolden(g.file, codegenCuda(asyncModule(g.opts)).source);
    });
  }

  it("defines only the helpers the kernel uses", () => {
    const plain = codegenCuda(asyncModule({ stages: 2, lanes: 4 })).source;
    expect(plain).toContain("tessera_cp_async_16(");
    expect(plain).not.toContain("tessera_cp_async_4(");
    expect(plain).not.toContain("zfill");
    expect(plain).not.toContain("tessera_cp_async_wait_group_dynamic");
    const triple = codegenCuda(asyncModule({ stages: 3, lanes: 1 })).source;
    expect(triple).toContain("cp.async.ca.shared.global [%0], [%1], 4;");
    // The epilogue's count (1 - e) is known only at run time.
    expect(triple).toContain("tessera_cp_async_wait_group_dynamic((1 - e));");
  });

  it("aligns a shared buffer that 16-byte copies write", () => {
    expect(codegenCuda(asyncModule({ stages: 2, lanes: 4 })).source).toContain("__shared__ __align__(16) float A_shared[256];");
    expect(codegenCuda(asyncModule({ stages: 3, lanes: 1 })).source).toContain("__shared__ float A_shared[96];");
  });

  describe("errors", () => {
    const copyKernel = (attrs: string): string => `
@T.prim_func
def main(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "k"})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)
    S = T.allocate([128], "float32", "shared")
    S_1 = T.Buffer((128,), data=S, scope="shared")
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
${attrs}
    B[threadIdx_x] = S_1[threadIdx_x]
`;
    const codegenError = (module: LoweredModule): string => {
      try {
        codegenCuda(module);
      } catch (err) {
        expect(err).toBeInstanceOf(CodegenError);
        return (err as Error).message;
      }
      throw new Error("expected a CodegenError");
    };

    it("a module for a target older than sm_80", () => {
      const forT4 = { ...asyncModule({ stages: 2, lanes: 4 }), target: target("nvidia/tesla-t4") };
      expect(codegenError(forT4)).toBe(
        "CUDA codegen of kernel async_copy_kernel: cp.async needs sm_80 or newer; target nvidia/tesla-t4 is sm_75; drop software_pipeline_async_stages",
      );
    });

    it("an async_scope left for the generator", () => {
      const m = moduleFromScript(
        copyKernel(
          '    with T.attr(0, "async_commit_queue_scope", 0):\n        with T.attr(0, "async_scope", 1):\n            S_1[threadIdx_x] = A[threadIdx_x]',
        ),
      );
      expect(codegenError(m)).toContain("an async_scope attribute is left; injectPTXAsyncCopy turns its copies into T.ptx_cp_async");
    });

    it("a wait without its in-flight count", () => {
      const m = moduleFromScript(copyKernel('    with T.attr(0, "async_wait_queue_scope", 0):\n        B[threadIdx_x + 32] = A[threadIdx_x]'));
      expect(codegenError(m)).toContain('"async_wait_queue_scope" must directly contain an "async_wait_inflight_count" attribute');
    });

    it("a copy whose destination views its storage as another dtype", () => {
      const m = moduleFromScript(copyKernel('    T.ptx_cp_async("int32", S, threadIdx_x, A.data, threadIdx_x, 4)'));
      expect(codegenError(m)).toContain("T.ptx_cp_async copies int32 elements, but its destination S holds float32");
    });
  });
});
