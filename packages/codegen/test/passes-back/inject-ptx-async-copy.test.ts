import { type PrimFunc, type Stmt, forEachExpr, parsePrimFunc } from "@tessera/ir";
import { loweredAsyncCopyScript } from "@tessera/corpus";
import { describe, expect, test } from "vitest";
import { LoweringError } from "../../src/lower/errors.js";
import { injectPTXAsyncCopyPass } from "../../src/lower/passes/inject-ptx-async-copy.js";
import { CUDA_LOWERING_PASSES } from "../../src/lower/cuda-pipeline.js";
import { lower } from "../../src/lower/pipeline.js";
import type { PassContext } from "../../src/lower/pass.js";
import { target } from "../../src/targets/target.js";
import { CTX, dedent, errorOf, expectScript, runPass } from "./helpers.js";

const A100: PassContext = { target: target("nvidia/a100") };

function inject(src: string | PrimFunc, ctx: PassContext = A100): PrimFunc {
  return runPass(injectPTXAsyncCopyPass, src, ctx);
}

function cpAsyncCount(body: Stmt): number {
  let n = 0;
  forEachExpr(body, (e) => {
    if (e.kind === "Call" && e.op === "ptx_cp_async") n++;
  });
  return n;
}

const HEADER = `
@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "async_copy", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)`;

/** A kernel of 32 threads with a 256-float shared buffer S (and a local one, L) around `body`. */
function kernel(body: string, header = HEADER): string {
  return `${header}
    S = T.allocate([256], "float32", "shared")
    S_1 = T.Buffer((256,), data=S, scope="shared")
    L = T.allocate([4], "float32", "local")
    L_1 = T.Buffer((4,), data=L, scope="local")
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
${dedent(body).replace(/^/gm, "    ").trimEnd()}
`;
}

/** `copy` as the only statement of an async producer, followed by its consumer. */
function producer(copy: string): string {
  return kernel(`
with T.attr(0, "async_commit_queue_scope", 0):
    with T.attr(0, "async_scope", 1):
${dedent(copy).replace(/^/gm, "        ").trimEnd()}
with T.attr(0, "async_wait_queue_scope", 0):
    with T.attr(0, "async_wait_inflight_count", 0):
        T.tvm_storage_sync("shared")
        B[threadIdx_x] = S_1[31 - threadIdx_x]`);
}

describe("injectPTXAsyncCopy", () => {
  test("double buffering with float4 copies: each vector store becomes one 16-byte cp.async of its Ramp bases", () => {
    const after = inject(loweredAsyncCopyScript({ stages: 2, lanes: 4 }));
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "async_copy", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)
    A_shared = T.allocate([256], "float32", "shared")
    A_shared_1 = T.Buffer((256,), data=A_shared, scope="shared")
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    for p in range(1):
        with T.attr(0, "async_commit_queue_scope", 0):
            T.ptx_cp_async("float32", A_shared, p * 128 + threadIdx_x * 4, A.data, p * 128 + threadIdx_x * 4, 16)
    for k in range(7):
        T.tvm_storage_sync("shared")
        with T.attr(0, "async_commit_queue_scope", 0):
            T.ptx_cp_async("float32", A_shared, (k + 1) % 2 * 128 + threadIdx_x * 4, A.data, (k + 1) * 128 + threadIdx_x * 4, 16)
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_inflight_count", 1):
                T.tvm_storage_sync("shared")
                for j in range(4):
                    B[k * 128 + threadIdx_x * 4 + j] = A_shared_1[k % 2 * 128 + (31 - threadIdx_x) * 4 + j] * T.float32(2)
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.tvm_storage_sync("shared")
            for j in range(4):
                B[7 * 128 + threadIdx_x * 4 + j] = A_shared_1[7 % 2 * 128 + (31 - threadIdx_x) * 4 + j] * T.float32(2)`,
    );
  });

  test("triple buffering with scalar copies: 4-byte cp.async, the waits untouched", () => {
    const after = inject(loweredAsyncCopyScript({ stages: 3, lanes: 1 }));
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    T.func_attr({"global_symbol": "async_copy", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)
    A_shared = T.allocate([96], "float32", "shared")
    A_shared_1 = T.Buffer((96,), data=A_shared, scope="shared")
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    for p in range(2):
        with T.attr(0, "async_commit_queue_scope", 0):
            T.ptx_cp_async("float32", A_shared, p * 32 + threadIdx_x * 1, A.data, p * 32 + threadIdx_x * 1, 4)
    for k in range(6):
        T.tvm_storage_sync("shared")
        with T.attr(0, "async_commit_queue_scope", 0):
            T.ptx_cp_async("float32", A_shared, (k + 2) % 3 * 32 + threadIdx_x * 1, A.data, (k + 2) * 32 + threadIdx_x * 1, 4)
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_inflight_count", 2):
                T.tvm_storage_sync("shared")
                for j in range(1):
                    B[k * 32 + threadIdx_x * 1 + j] = A_shared_1[k % 3 * 32 + (31 - threadIdx_x) * 1 + j] * T.float32(2)
    for e in range(2):
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_inflight_count", 1 - e):
                T.tvm_storage_sync("shared")
                for j in range(1):
                    B[(6 + e) * 32 + threadIdx_x * 1 + j] = A_shared_1[(6 + e) % 3 * 32 + (31 - threadIdx_x) * 1 + j] * T.float32(2)`,
    );
  });

  test("a zero-filled copy (if_then_else with 0) becomes the predicated form; a condition that always holds is dropped", () => {
    const after = inject(loweredAsyncCopyScript({ stages: 2, lanes: 4, validElements: 1000 }));
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((1000,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "async_copy", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)
    A_shared = T.allocate([256], "float32", "shared")
    A_shared_1 = T.Buffer((256,), data=A_shared, scope="shared")
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    for p in range(1):
        with T.attr(0, "async_commit_queue_scope", 0):
            T.ptx_cp_async("float32", A_shared, p * 128 + threadIdx_x * 4, A.data, p * 128 + threadIdx_x * 4, 16)
    for k in range(7):
        T.tvm_storage_sync("shared")
        with T.attr(0, "async_commit_queue_scope", 0):
            T.ptx_cp_async("float32", A_shared, (k + 1) % 2 * 128 + threadIdx_x * 4, A.data, (k + 1) * 128 + threadIdx_x * 4, 16, (k + 1) * 128 + threadIdx_x * 4 < 1000)
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_inflight_count", 1):
                T.tvm_storage_sync("shared")
                for j in range(4):
                    B[k * 128 + threadIdx_x * 4 + j] = A_shared_1[k % 2 * 128 + (31 - threadIdx_x) * 4 + j] * T.float32(2)
    with T.attr(0, "async_wait_queue_scope", 0):
        with T.attr(0, "async_wait_inflight_count", 0):
            T.tvm_storage_sync("shared")
            for j in range(4):
                B[7 * 128 + threadIdx_x * 4 + j] = A_shared_1[7 % 2 * 128 + (31 - threadIdx_x) * 4 + j] * T.float32(2)`,
    );
  });

  test("a Select with a zero is a zero fill too; an if around the copy stays around the cp.async", () => {
    const after = inject(
      producer(`
if threadIdx_x < 24:
    S_1[threadIdx_x] = T.Select(threadIdx_x < 20, A[threadIdx_x + 7], T.float32(0))`),
    );
    expectScript(
      after,
      kernel(`
with T.attr(0, "async_commit_queue_scope", 0):
    if threadIdx_x < 24:
        T.ptx_cp_async("float32", S, threadIdx_x, A.data, threadIdx_x + 7, 4, threadIdx_x < 20)
with T.attr(0, "async_wait_queue_scope", 0):
    with T.attr(0, "async_wait_inflight_count", 0):
        T.tvm_storage_sync("shared")
        B[threadIdx_x] = S_1[31 - threadIdx_x]`),
    );
  });

  test("a float4 copy whose addresses are only provably 8-byte aligned becomes two 8-byte copies", () => {
    const after = inject(producer("S_1[T.Ramp(threadIdx_x * 4, 1, 4)] = A[T.Ramp(threadIdx_x * 6 + 2, 1, 4)]"));
    expectScript(
      after,
      kernel(`
with T.attr(0, "async_commit_queue_scope", 0):
    T.ptx_cp_async("float32", S, threadIdx_x * 4, A.data, threadIdx_x * 6 + 2, 8)
    T.ptx_cp_async("float32", S, threadIdx_x * 4 + 2, A.data, threadIdx_x * 6 + 2 + 2, 8)
with T.attr(0, "async_wait_queue_scope", 0):
    with T.attr(0, "async_wait_inflight_count", 0):
        T.tvm_storage_sync("shared")
        B[threadIdx_x] = S_1[31 - threadIdx_x]`),
    );
  });

  test("float16 copies of 4 bytes and more: the byte count is lanes × 2", () => {
    const header = `
@T.prim_func
def main(A: T.Buffer((1024,), "float16"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "async_copy", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)
    H = T.allocate([256], "float16", "shared")
    H_1 = T.Buffer((256,), "float16", data=H, scope="shared")`;
    const f = inject(
      kernel(
        `
with T.attr(0, "async_commit_queue_scope", 0):
    with T.attr(0, "async_scope", 1):
        H_1[T.Ramp(threadIdx_x * 8, 1, 8)] = A[T.Ramp(threadIdx_x * 8, 1, 8)]
        H_1[T.Ramp(threadIdx_x * 2, 1, 2)] = A[T.Ramp(threadIdx_x * 2 + 512, 1, 2)]`,
        header,
      ),
    );
    const copies: string[] = [];
    forEachExpr(f.body, (e) => {
      if (e.kind === "Call" && e.op === "ptx_cp_async") copies.push(`${e.dtype} ${e.args[4]!.kind === "IntImm" ? e.args[4]!.value : "?"}`);
    });
    expect(copies).toEqual(["float16 16", "float16 4"]);
  });

  test("a function without async attributes is returned as it is, on any target", () => {
    const f = parsePrimFunc(kernel("B[threadIdx_x] = A[threadIdx_x]"));
    expect(injectPTXAsyncCopyPass.run(f, CTX)).toBe(f);
  });

  test("runs after threadSync (which must see the copies as shared stores) and before the final simplify", () => {
    const names = CUDA_LOWERING_PASSES.map((p) => p.name);
    // Only the swizzle of shared offsets (which keeps the copies shared stores) runs in between.
    expect(names.slice(names.indexOf("threadSync") + 1, names.indexOf("injectPTXAsyncCopy"))).toEqual(["injectBufferSwizzle"]);
    // Then only the wgmma fences and waits (which leave the copies alone) before the final simplify.
    expect(names.slice(names.indexOf("injectPTXAsyncCopy") + 1, names.indexOf("injectPTXAsyncCopy") + 3)).toEqual(["injectWgmmaSync", "simplify"]);
  });

  test("lower: the kernel takes a buffer it only names as a cp.async source (regression: splitHostDevice missed it)", () => {
    const module = lower(parsePrimFunc(loweredAsyncCopyScript({ stages: 2, lanes: 4 })), "nvidia/h100");
    expect(module.kernels).toHaveLength(1);
    const only = module.kernels[0]!;
    expect(only.params.map((p) => p.name)).toEqual(["A", "B"]);
    expect(cpAsyncCount(only.body)).toBe(2);
  });

  describe("errors", () => {
    const message = (src: string, ctx: PassContext = A100): string => errorOf(() => inject(src, ctx), LoweringError).message;

    test("a target older than sm_80", () => {
      expect(message(loweredAsyncCopyScript({ stages: 2, lanes: 4 }), CTX)).toBe(
        "injectPTXAsyncCopy: cp.async needs sm_80 or newer; target nvidia/tesla-t4 is sm_75; drop software_pipeline_async_stages",
      );
      expect(() => lower(parsePrimFunc(loweredAsyncCopyScript({ stages: 2, lanes: 4 })), "nvidia/tesla-t4")).toThrow(/cp.async needs sm_80 or newer/);
    });

    test.each([
      ["a store to local memory", "L_1[0] = A[threadIdx_x]", "the store to L writes local memory; cp.async copies into shared memory only"],
      [
        "a copy from shared memory",
        "S_1[threadIdx_x] = S_1[threadIdx_x + 32]",
        "the store to S copies from S in shared memory; cp.async copies from global memory only",
      ],
      [
        "a computed value",
        "S_1[threadIdx_x] = A[threadIdx_x] * T.float32(2)",
        "the store to S stores A[threadIdx_x] * T.float32(2.0), which is not a load from global memory",
      ],
      [
        "a fill with something else than zero",
        "S_1[threadIdx_x] = T.if_then_else(threadIdx_x < 8, A[threadIdx_x], T.float32(1))",
        "which is not a load from global memory (or one zero-filled under a condition)",
      ],
      [
        "a strided vector",
        "S_1[T.Ramp(threadIdx_x * 4, 1, 4)] = A[T.Ramp(threadIdx_x * 8, 2, 4)]",
        "reads A[T.Ramp(threadIdx_x * 8, 2, 4)], which is not contiguous",
      ],
      [
        "a condition that differs between lanes",
        "S_1[T.Ramp(threadIdx_x * 4, 1, 4)] = T.if_then_else(T.Ramp(threadIdx_x * 4, 1, 4) < T.Broadcast(100, 4), A[T.Ramp(threadIdx_x * 4, 1, 4)], T.Broadcast(T.float32(0), 4))",
        "which is not a load from global memory",
      ],
      ["a barrier", 'T.tvm_storage_sync("shared")', 'async_scope contains T.tvm_storage_sync("shared"); only copies from global to shared memory'],
      ["a nested async_scope", 'with T.attr(0, "async_scope", 1):\n    S_1[threadIdx_x] = A[threadIdx_x]', "async_scope inside another async_scope"],
    ])("inside async_scope: %s", (_what, copy, expected) => {
      expect(message(producer(copy))).toContain(expected);
    });

    test("a copy of 2 bytes (one float16) is too small for cp.async", () => {
      const header = `
@T.prim_func
def main(A: T.Buffer((64,), "float16"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "async_copy"})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)
    H = T.allocate([64], "float16", "shared")
    H_1 = T.Buffer((64,), "float16", data=H, scope="shared")`;
      const src = kernel(
        'with T.attr(0, "async_commit_queue_scope", 0):\n    with T.attr(0, "async_scope", 1):\n        H_1[threadIdx_x] = A[threadIdx_x]',
        header,
      );
      expect(message(src)).toBe(
        "injectPTXAsyncCopy: async_scope: the store to H copies 2 bytes (1 × float16); cp.async copies 4, 8 or 16 bytes — vectorize the copy so that each store moves 4, 8 or 16 bytes",
      );
      const unaligned = src.replace("H_1[threadIdx_x] = A[threadIdx_x]", "H_1[T.Ramp(threadIdx_x * 2, 1, 2)] = A[T.Ramp(threadIdx_x * 3, 1, 2)]");
      expect(message(unaligned)).toContain("which cannot be proven 4-byte aligned");
    });

    test("an async_scope outside every commit scope would never be waited for", () => {
      const src = kernel('with T.attr(0, "async_scope", 1):\n    S_1[threadIdx_x] = A[threadIdx_x]');
      expect(message(src)).toContain("async_scope outside every async_commit_queue_scope");
    });

    test("two queues in one kernel (CUDA has one cp.async queue per thread)", () => {
      const src = producer("S_1[threadIdx_x] = A[threadIdx_x]").replace('"async_wait_queue_scope", 0', '"async_wait_queue_scope", 1');
      expect(message(src)).toContain("async_wait_queue_scope names queue 1, but an earlier async attribute named queue 0");
    });

    test("a wait without its in-flight count", () => {
      const src = kernel(`
with T.attr(0, "async_commit_queue_scope", 0):
    with T.attr(0, "async_scope", 1):
        S_1[threadIdx_x] = A[threadIdx_x]
with T.attr(0, "async_wait_queue_scope", 0):
    B[threadIdx_x] = S_1[31 - threadIdx_x]`);
      expect(message(src)).toContain('"async_wait_queue_scope" must directly contain an "async_wait_inflight_count" attribute');
    });
  });
});
