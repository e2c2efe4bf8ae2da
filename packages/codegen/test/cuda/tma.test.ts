/**
 * TMA loads in CUDA C (cuda/tma.ts): the kernel takes each loaded buffer's tensor map as a
 * `const __grid_constant__` parameter after its pointer, the launch metadata records what the host
 * encodes, the load is the 2-D tensor copy on the mbarrier; misuse is refused naming the buffer.
 */
import { cudaTarget, exportHeader, moduleFromKernelFuncs } from "@tessera/codegen";
import { tmaWgmmaGemmScript, tmaWgmmaTf32Plan } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { codegenCuda } from "../../src/cuda/index.js";
import { LoweringError } from "../../src/lower/errors.js";
import { moduleFromScript } from "./lowered-kernel.js";

const H100 = "nvidia/h100";

/** One thread loads a `box` of A (rows, columns) with `swizzle` (and the statement `second` after it); the threads wait and copy it out. */
function boxScript(opts: { box?: readonly [number, number]; swizzle?: number; second?: string; shape?: string } = {}): string {
  const [rows, cols] = opts.box ?? [8, 64];
  const swizzle = opts.swizzle ?? 128;
  const bar = 'T.tvm_access_ptr(T.type_annotation("uint64"), bars, 0, 1, 3)';
  const load = (r: number, c: number, s: number) =>
    `T.ptx.cp_async_bulk_tensor_2d(T.tvm_access_ptr(T.type_annotation("float16"), tile, 0, 512, 2), A.data, ${c}, ${r}, ${s}, 0, 8, ${bar})`;
  return `@T.prim_func
def main(A: T.Buffer(${opts.shape ?? "(32, 64)"}, "float16"), B: T.Buffer((512,), "float16")):
    T.func_attr({"global_symbol": "tma_box", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)
    tile = T.allocate([512], "float16", "shared.dyn")
    tile_1 = T.Buffer((512,), "float16", data=tile, scope="shared.dyn")
    bars = T.allocate([1], "uint64", "shared")
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    if threadIdx_x == 0:
        T.ptx.mbarrier_init(${bar}, 1)
    T.tvm_storage_sync("shared")
    if threadIdx_x == 0:
        T.ptx.mbarrier_arrive_expect_tx(${bar}, 1024)
        ${load(rows, cols, swizzle)}${opts.second === undefined ? "" : `\n        ${opts.second}`}
    T.ptx.mbarrier_wait_parity(${bar}, 0)
    for i in range(16):
        B[i * 32 + threadIdx_x] = tile_1[i * 32 + threadIdx_x]
`;
}

describe("TMA loads in CUDA C", () => {
  it("passes A's tensor map after its pointer and loads the box through it on the mbarrier", () => {
    const { source, kernels } = codegenCuda(moduleFromScript(boxScript(), H100));
    expect(source).toMatch(
      /__global__ void __launch_bounds__\(32\) tma_box_kernel\(__half\* __restrict__ A, const __grid_constant__ tessera_tensor_map A_tmap, __half\* __restrict__ B\)/,
    );
    expect(source).toContain("tessera_tma_load_2d(tile + 0, &A_tmap, 0, 8, bars + 0);");
    expect(source).toContain("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];");
    expect(source).toContain("struct __align__(64) tessera_tensor_map { unsigned long long opaque[16]; };");
    // The swizzled box needs its destination on a 1024-byte boundary.
    expect(source).toContain("extern __shared__ __align__(1024) __half tile[];");
    expect(kernels[0]!.params).toEqual([
      { name: "A", kind: "buffer", dtype: "float16" },
      { name: "A_tmap", kind: "tensor_map", dtype: "float16", tensorMap: { shape: [32, 64], rowStride: 64, box: [8, 64], swizzle: 128 } },
      { name: "B", kind: "buffer", dtype: "float16" },
    ]);
  });

  it("a kernel without TMA has no tensor-map helpers", () => {
    const { source } = codegenCuda(moduleFromScript(boxScript().replace(/T\.ptx\.cp_async_bulk_tensor_2d\(.*\)\n/, "T.evaluate(0)\n"), H100));
    expect(source).not.toContain("tessera_tensor_map");
  });

  it("the TMA wgmma GEMM: A's 128×64 box and B's four 64×64 panels, setmaxnreg for both roles", () => {
    const m = moduleFromScript(tmaWgmmaGemmScript(512, { stages: 3, maxRegisters: { producer: 40, consumer: 232 } }), H100);
    const { source, kernels, requiredArch } = codegenCuda(m);
    expect(requiredArch).toBe("sm_90a");
    expect(kernels[0]!.params.filter((p) => p.kind === "tensor_map").map((p) => [p.name, p.tensorMap?.box])).toEqual([
      ["A_tmap", [128, 64]],
      ["B_tmap", [64, 64]],
    ]);
    expect(source.match(/tessera_tma_load_2d\(/g)?.length).toBe(1 + 5);
    expect(source).toContain('asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\\n" ::: "memory");');
    expect(source).toContain('asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\\n" ::: "memory");');
    // The async proxy wrote the tiles: no consumer fence.
    expect(source).not.toMatch(/tessera_fence_proxy_async\(\);/);
  });

  it("128-row consumers: A's 256×64 box, B's two panels, two m64n128k16 wgmmas committed as one group a k step", () => {
    const { source, kernels } = codegenCuda(moduleFromScript(tmaWgmmaGemmScript(512, { stages: 3, consumerRows: 128 }), H100));
    expect(kernels[0]!.params.filter((p) => p.kind === "tensor_map").map((p) => p.tensorMap?.box)).toEqual([
      [256, 64],
      [64, 64],
    ]);
    expect(source.match(/tessera_tma_load_2d\(/g)?.length).toBe(1 + 3);
    const body = source.slice(source.indexOf("__global__"));
    expect(body.match(/tessera_wgmma_m64n128k16\w*\(C_warp \+ (0|64),/g)).toEqual([
      "tessera_wgmma_m64n128k16_f32_f16_f16(C_warp + 0,",
      "tessera_wgmma_m64n128k16_f32_f16_f16(C_warp + 64,",
    ]);
    expect(body).toContain("tessera_wgmma_wait_group<4>();");
  });

  it("tf32: A's 128×32 and Bᵀ's 256×32 float32 boxes, four m64n256k8 tf32 wgmmas a stage from K-major tiles, after the Bᵀ pre-pass", () => {
    const m = moduleFromKernelFuncs(tmaWgmmaTf32Plan(512, { stages: 3 }), { target: cudaTarget(H100) });
    expect(m.kernels.map((k) => k.name)).toEqual(["wgmma_tma_tf32_gemm_kernel_0", "wgmma_tma_tf32_gemm_kernel_1"]);
    expect(m.workspaces).toEqual([{ name: "Bt", dtype: "float32", elements: 512 * 512 }]);
    // The pre-pass reads B (argument 1) and writes the workspace the GEMM kernel reads as Bt.
    expect(m.kernels[0]!.params.map((p) => (p.kind === "buffer" ? [p.name, p.source] : p.name))).toEqual([
      ["In", { kind: "param", index: 1 }],
      ["Out", { kind: "workspace", index: 0 }],
    ]);
    const { source, kernels } = codegenCuda(m);
    expect(kernels[1]!.params.filter((p) => p.kind === "tensor_map").map((p) => [p.name, p.tensorMap?.box])).toEqual([
      ["A_tmap", [128, 32]],
      ["Bt_tmap", [256, 32]],
    ]);
    expect(m.kernels[1]!.params.flatMap((p) => (p.kind === "buffer" && p.tensorMap !== undefined ? [p.tensorMap.dtype] : []))).toEqual(["float32", "float32"]);
    const gemm = source.slice(source.indexOf("wgmma_tma_tf32_gemm_kernel_1"));
    expect(gemm.match(/tessera_tma_load_2d\(/g)?.length).toBe(2);
    expect(gemm.match(/tessera_wgmma_m64n256k8\w*\(C_warp \+ 0,/g)).toEqual(["tessera_wgmma_m64n256k8_f32_tf32_tf32(C_warp + 0,"]);
    expect(gemm).toContain("tessera_wgmma_wait_group<4>();");
  });

  it("moduleFromKernelFuncs refuses a buffer without a source, a source of no buffer and a missing workspace, naming them", () => {
    const plan = tmaWgmmaTf32Plan(256, { stages: 2 });
    const [transpose, gemm] = plan.kernels as [(typeof plan.kernels)[0], (typeof plan.kernels)[0]];
    const build = (kernels: (typeof plan.kernels)[number][], workspaces = plan.workspaces) =>
      moduleFromKernelFuncs({ ...plan, workspaces, kernels }, { target: cudaTarget(H100) });
    expect(() => build([transpose, { ...gemm, sources: { A: gemm.sources["A"]!, C: gemm.sources["C"]! } }])).toThrow(
      /kernel wgmma_tma_tf32_gemm_kernel_1: buffer Bt has no source/,
    );
    expect(() => build([{ ...transpose, sources: { ...transpose.sources, B: { kind: "param", index: 1 } } }, gemm])).toThrow(
      /kernel wgmma_tma_tf32_gemm_kernel_0: a source is given for B, which is no buffer parameter/,
    );
    expect(() => build([transpose, gemm], [])).toThrow(/kernel wgmma_tma_tf32_gemm_kernel_0: buffer Out's source is workspace 0, which does not exist/);
  });

  it("refuses a target before sm_90, naming the buffer", () => {
    expect(() => codegenCuda(moduleFromScript(boxScript(), "nvidia/a100"))).toThrow(
      /TMA loads \(T\.ptx\.cp_async_bulk_tensor_2d\) of buffer A need sm_90 or newer; target nvidia\/a100 is sm_80/,
    );
  });

  it("refuses a swizzle whose span is not the box row, naming the buffer", () => {
    expect(() => moduleFromScript(boxScript({ box: [8, 32], swizzle: 128 }), H100)).toThrow(LoweringError);
    expect(() => moduleFromScript(boxScript({ box: [8, 32], swizzle: 128 }), H100)).toThrow(
      /tensor map of buffer A: the 128-byte swizzle spans 128 bytes, but a box row \(32 float16\) is 64/,
    );
  });

  it("refuses two boxes for one buffer, a flat buffer and a box over 256", () => {
    const bar = 'T.tvm_access_ptr(T.type_annotation("uint64"), bars, 0, 1, 3)';
    const other = `T.ptx.cp_async_bulk_tensor_2d(T.tvm_access_ptr(T.type_annotation("float16"), tile, 0, 512, 2), A.data, 64, 4, 128, 0, 0, ${bar})`;
    expect(() => moduleFromScript(boxScript({ second: other }), H100)).toThrow(
      /tensor map of buffer A: one kernel loads it with a 8×64 box \(swizzle 128\) and a 4×64 box/,
    );
    expect(() => moduleFromScript(boxScript({ shape: "(2048,)" }), H100)).toThrow(
      /of buffer A: a tensor map needs the buffer's constant 2-D shape \(rows, columns\), got \(2048\)/,
    );
    expect(() => moduleFromScript(boxScript({ box: [512, 64] }), H100)).toThrow(/tensor map of buffer A: a box of 512 rows; TMA boxes are 1 to 256/);
  });

  it("the exported C++ launcher refuses a kernel with a tensor map, naming the buffer", () => {
    expect(() => exportHeader(moduleFromScript(boxScript(), H100))).toThrow(/buffer A is loaded with TMA/);
  });
});
