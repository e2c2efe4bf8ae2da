/** What the CUDA generator refuses, and that it says so with a CodegenError naming the kernel. */
import { allocate, attrStmt, bufferLoad, bufferStore, declBuffer, evaluate, parsePrimFunc, seq, variable } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { CodegenError, codegenCuda, exportHeader } from "../../src/cuda/index.js";
import type { DeviceKernel, LoweredModule } from "../../src/lowered.js";
import { kernelFromFunc, moduleFromScript, moduleOfKernels } from "./lowered-kernel.js";

function script(body: string, params = 'A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")'): string {
  return `
@T.prim_func
def main(${params}):
    T.func_attr({"global_symbol": "bad", "tir.noalias": T.bool(True)})
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
${body}
`;
}

function codegenError(run: () => unknown): CodegenError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(CodegenError);
    return err as CodegenError;
  }
  throw new Error("expected a CodegenError");
}

function withBody(module: LoweredModule, body: DeviceKernel["body"]): LoweredModule {
  return { ...module, kernels: [{ ...module.kernels[0]!, body }] };
}

describe("CodegenError", () => {
  it("rejects a dtype without a CUDA spelling", () => {
    const err = codegenError(() => codegenCuda(moduleFromScript(script('    B[threadIdx_x] = T.Cast("float32", T.Cast("float8_e4m3fn", A[threadIdx_x]))'))));
    expect(err.kernel).toBe("bad_kernel");
    expect(err.message).toMatch(/^CUDA codegen of kernel bad_kernel: a cast has dtype float8_e4m3fn, which the CUDA generator does not support/);
  });

  it("rejects a shared allocation of symbolic size", () => {
    // Lowering refuses this too; the generator checks on its own for kernels built by hand.
    const module = moduleFromScript(script("    B[threadIdx_x] = A[threadIdx_x]", 'A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), n: T.int32'));
    const [a, b, n] = module.kernels[0]!.params;
    if (a?.kind !== "buffer" || b?.kind !== "buffer" || n?.kind !== "scalar") throw new Error("unexpected parameters");
    const tx = variable("threadIdx.x");
    const shared = declBuffer("S", [n.var], "float32", { scope: "shared" });
    const body = attrStmt(
      "thread_extent",
      tx,
      16,
      allocate(shared, seq([bufferStore(shared, bufferLoad(a.buffer, [tx]), [tx]), bufferStore(b.buffer, bufferLoad(shared, [tx]), [tx])])),
    );
    const err = codegenError(() => codegenCuda(withBody(module, body)));
    expect(err.message).toContain("allocation S (shared) has a symbolic size");
  });

  it("rejects one thread tag launched with two extents", () => {
    const module = moduleFromScript(script("    B[threadIdx_x] = A[threadIdx_x]"));
    const tx = variable("threadIdx.x");
    const a = module.kernels[0]!.params[0]!;
    if (a.kind !== "buffer") throw new Error("unexpected");
    const body = seq([attrStmt("thread_extent", tx, 16, bufferStore(a.buffer, 0, [tx])), attrStmt("thread_extent", tx, 32, bufferStore(a.buffer, 1, [tx]))]);
    expect(codegenError(() => codegenCuda(withBody(module, body))).message).toContain("threadIdx.x is bound with extent 16 in one place and 32 in another");
  });

  it("reports launch metadata that disagrees with the body", () => {
    const module = moduleFromScript(script("    B[threadIdx_x] = A[threadIdx_x]"));
    const kernel = module.kernels[0]!;
    const wrong = { ...module, kernels: [{ ...kernel, launch: { ...kernel.launch, block: [32, 1, 1] as [number, number, number] } }] };
    expect(codegenError(() => codegenCuda(wrong)).message).toContain("block [32, 1, 1] but the body launches [16, 1, 1]");
  });

  it("rejects blocks that were not lowered", () => {
    const func = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("copy"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
`);
    const module = moduleOfKernels(func, [kernelFromFunc(func, "copy_kernel")]);
    expect(codegenError(() => codegenCuda(module)).message).toContain("block root was not lowered");
  });

  it("rejects multi-dimensional (unflattened) buffer accesses", () => {
    const err = codegenError(() =>
      codegenCuda(moduleFromScript(script("    B[threadIdx_x, 0] = A[threadIdx_x, 1]", 'A: T.Buffer((16, 4), "float32"), B: T.Buffer((16, 4), "float32")'))),
    );
    expect(err.message).toContain("accessed with 2 indices");
  });

  it("rejects a barrier on an unsupported scope and a free variable", () => {
    const module = moduleFromScript(script('    T.tvm_storage_sync("global")\n    B[threadIdx_x] = A[threadIdx_x]'));
    expect(codegenError(() => codegenCuda(module)).message).toContain('T.tvm_storage_sync("global") has no CUDA translation');
    const stray = variable("stray");
    const out = declBuffer("out", [4]);
    expect(codegenError(() => codegenCuda(withBody(module, bufferStore(out, 0, [stray])))).message).toContain(
      "buffer out is neither a kernel parameter nor allocated in the kernel",
    );
    const a = module.kernels[0]!.params[0]!;
    if (a.kind !== "buffer") throw new Error("unexpected");
    expect(codegenError(() => codegenCuda(withBody(module, bufferStore(a.buffer, 0, [stray])))).message).toContain(
      "variable stray is used but is not a parameter",
    );
    expect(codegenError(() => codegenCuda(withBody(module, evaluate(stray)))).kernel).toBe("bad_kernel");
  });

  it("rejects an invalid namespace or guard for a header", () => {
    const module = moduleFromScript(script("    B[threadIdx_x] = A[threadIdx_x]"));
    expect(codegenError(() => exportHeader(module, { namespace: "my-ns" })).message).toContain('invalid namespace "my-ns"');
    expect(codegenError(() => exportHeader(module, { guard: "1X" })).message).toContain('invalid include guard "1X"');
  });
});

describe("vectors CUDA has no type for", () => {
  it("copies an 8-lane access lane by lane", () => {
    const src = codegenCuda(moduleFromScript(script("    B[T.Ramp(threadIdx_x * 8 % 64, 1, 8)] = A[T.Ramp(threadIdx_x * 8 % 64, 1, 8)]"))).source;
    expect(src.match(/B\[/g)).toHaveLength(8);
  });
});
