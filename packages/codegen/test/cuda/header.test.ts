/** Host launcher details of exportHeader beyond the golden files. */
import { describe, expect, it } from "vitest";
import { CodegenError, exportHeader } from "../../src/cuda/index.js";
import { moduleFromScript } from "./lowered-kernel.js";
import { gemmReluAddModule } from "./multi-kernel.js";

const copy = (symbol: string): string => `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "int32"), n: T.int32):
    T.func_attr({"global_symbol": "${symbol}", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    B[blockIdx_x * 32 + threadIdx_x] = T.Cast("int32", A[blockIdx_x * 32 + threadIdx_x]) + n
`;

describe("exportHeader", () => {
  it("passes buffers and scalars in the function's parameter order, with the stream last", () => {
    const header = exportHeader(moduleFromScript(copy("to_int")));
    expect(header).toContain("inline cudaError_t launch_to_int(float* A, int* B, int n, cudaStream_t stream = 0) {");
    expect(header).toContain("// Host launcher: launch_to_int(<the function's buffers and scalars in order>, cudaStream_t stream = 0)");
    expect(header).toContain("to_int_kernel<<<dim3(2, 1, 1), dim3(32, 1, 1), 0, stream>>>(A, B, n);");
    expect(header).toContain("#ifndef TESSERA_TO_INT_CUH");
    expect(header).not.toContain('extern "C"');
  });

  it("names the launcher launch_<function>, also for a function called main", () => {
    const header = exportHeader(moduleFromScript(copy("main")));
    expect(header).toContain("inline cudaError_t launch_main(");
    expect(header).not.toContain("main_1");
  });

  it("sizes workspaces on 256-byte boundaries and frees only what it allocated", () => {
    const module = gemmReluAddModule();
    const two = { ...module, workspaces: [...module.workspaces, { name: "extra", dtype: "float32", elements: 10 }] };
    const header = exportHeader(two);
    expect(header).toContain("inline size_t gemm_relu_add_workspace_bytes() { return 4352; }");
    expect(header).toContain("float* extra = reinterpret_cast<float*>(workspace_base + 4096);");
    expect(header.match(/if \(workspace == nullptr\) cudaFreeAsync\(workspace_base, stream\);/g)).toHaveLength(2);
  });

  it("reports a kernel argument that points at a missing host parameter or workspace", () => {
    const module = gemmReluAddModule();
    const noWorkspace = { ...module, workspaces: [] };
    expect(() => exportHeader(noWorkspace)).toThrow(CodegenError);
    expect(() => exportHeader(noWorkspace)).toThrow(/parameter T_matmul refers to workspace 0, but the module has 0/);
  });
});
