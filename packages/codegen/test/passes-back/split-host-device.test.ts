import { forEachStmt } from "@tessera/ir";
import { describe, expect, test } from "vitest";
import { LoweringError } from "../../src/lower/errors.js";
import { splitHostDevice, splitHostDevicePass } from "../../src/lower/passes/split-host-device.js";
import { CTX, errorOf, parse } from "./helpers.js";

const TWO_KERNELS = `
@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32"), scale: T.float32, C: T.Buffer((256,), "float32")):
    T.func_attr({"global_symbol": "two_step"})
    tmp = T.allocate([256], "float32", "global")
    tmp_1 = T.Buffer((256,), data=tmp)
    with T.launch_thread("blockIdx.x", 2) as blockIdx_x:
        threadIdx_x = T.launch_thread("threadIdx.x", 128)
        tmp_1[blockIdx_x * 128 + threadIdx_x] = A[blockIdx_x * 128 + threadIdx_x] * scale
    with T.launch_thread("blockIdx.x", 4) as blockIdx_x_1:
        threadIdx_x_1 = T.launch_thread("threadIdx.x", 64)
        S = T.allocate([64], "float32", "shared")
        S_1 = T.Buffer((64,), data=S, scope="shared")
        S_1[threadIdx_x_1] = tmp_1[blockIdx_x_1 * 64 + threadIdx_x_1]
        C[blockIdx_x_1 * 64 + threadIdx_x_1] = S_1[threadIdx_x_1] + tmp_1[blockIdx_x_1 * 64 + threadIdx_x_1]
`;

function launchNest(body: string): string {
  return `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), n: T.int32):
    T.func_attr({"global_symbol": "f"})
${body.replace(/^\n+/, "").replace(/^/gm, "    ")}
`;
}

describe("splitHostDevice", () => {
  test("one kernel per launch nest, numbered; params in parameter order, then workspaces", () => {
    const func = parse(TWO_KERNELS);
    const { kernels, workspaces } = splitHostDevice(func);
    expect(workspaces).toEqual([{ name: "tmp", dtype: "float32", elements: 256 }]);
    expect(kernels.map((k) => k.name)).toEqual(["two_step_kernel_0", "two_step_kernel_1"]);
    const [k0, k1] = kernels as [(typeof kernels)[0], (typeof kernels)[0]];
    expect(k0.params.map((p) => [p.name, p.kind, p.kind === "buffer" ? p.source : p.dtype])).toEqual([
      ["A", "buffer", { kind: "param", index: 0 }],
      ["scale", "scalar", "float32"],
      ["tmp", "buffer", { kind: "workspace", index: 0 }],
    ]);
    expect(k1.params.map((p) => [p.name, p.kind === "buffer" ? p.source : p.dtype])).toEqual([
      ["C", { kind: "param", index: 3 }],
      ["tmp", { kind: "workspace", index: 0 }],
    ]);
    expect(k0.launch).toEqual({
      name: "two_step_kernel_0",
      grid: [2, 1, 1],
      block: [128, 1, 1],
      dynamicSharedBytes: 0,
      params: [
        { name: "A", kind: "buffer", dtype: "float32" },
        { name: "scale", kind: "scalar", dtype: "float32" },
        { name: "tmp", kind: "buffer", dtype: "float32" },
      ],
    });
    expect(k0.sharedBytes).toBe(0);
    expect(k1.launch.grid).toEqual([4, 1, 1]);
    expect(k1.launch.block).toEqual([64, 1, 1]);
    expect(k1.sharedBytes).toBe(256);
    // The kernel buffer parameter is the very buffer the body accesses.
    const a = k0.params[0]!;
    expect(a.kind === "buffer" && a.buffer.data).toBe(func.bufferMap.get(func.params[0]!)!.data);
  });

  test("a single kernel is named <global_symbol>_kernel; the pass form leaves the function unchanged", () => {
    const func = parse(
      launchNest(`
blockIdx_x = T.launch_thread("blockIdx.x", 2)
blockIdx_y = T.launch_thread("blockIdx.y", 3)
threadIdx_x = T.launch_thread("threadIdx.x", 4)
threadIdx_y = T.launch_thread("threadIdx.y", 2)
threadIdx_z = T.launch_thread("threadIdx.z", 2)
B[threadIdx_x] = A[threadIdx_x]`),
    );
    const { kernels } = splitHostDevice(func);
    expect(kernels.map((k) => [k.name, k.launch.grid, k.launch.block])).toEqual([["f_kernel", [2, 3, 1], [4, 2, 2]]]);
    expect(splitHostDevicePass.run(func, CTX)).toBe(func);
  });

  describe("errors", () => {
    const cases: Record<string, [string, string]> = {
      "a serial loop around a kernel": [
        `
for i in range(4):
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
    B[i * 16 + threadIdx_x] = A[i * 16 + threadIdx_x]`,
        "splitHostDevice: function f: loop i (serial, extent 4) runs on the host, outside every kernel. Did you forget to bind it? Bind the loops around it to blockIdx/threadIdx with sch.bind",
      ],
      "a store outside every kernel": [
        `
with T.launch_thread("threadIdx.x", 16) as threadIdx_x:
    B[threadIdx_x] = A[threadIdx_x]
B[0] = T.float32(0)`,
        "splitHostDevice: function f: the store to B runs on the host, outside every kernel. Did you forget to bind it? Bind the loops around it to blockIdx/threadIdx with sch.bind",
      ],
      "no thread binding at all": [
        `
for i in range(64):
    B[i] = A[i]`,
        "splitHostDevice: function f: no loop is bound to a GPU thread: bind the outer loops to blockIdx/threadIdx with sch.bind",
      ],
      "a launch extent that is not a constant": [
        `
threadIdx_x = T.launch_thread("threadIdx.x", n)
B[threadIdx_x] = A[threadIdx_x]`,
        "splitHostDevice: kernel f_kernel: the extent of threadIdx.x is n, not a constant; launch dimensions must be known at compile time",
      ],
      "global storage allocated inside a kernel": [
        `
blockIdx_x = T.launch_thread("blockIdx.x", 2)
tmp = T.allocate([64], "float32", "global")
tmp_1 = T.Buffer((64,), data=tmp)
tmp_1[blockIdx_x] = A[blockIdx_x]
B[blockIdx_x] = tmp_1[blockIdx_x]`,
        "splitHostDevice: kernel f_kernel: global buffer tmp is allocated inside the kernel; intermediates in global memory must be allocated outside every blockIdx/threadIdx binding",
      ],
      "one tag with two extents": [
        `
blockIdx_x = T.launch_thread("blockIdx.x", 2)
threadIdx_x = T.env_thread("threadIdx.x")
with T.launch_thread(threadIdx_x, 16):
    B[threadIdx_x] = A[threadIdx_x]
with T.launch_thread(threadIdx_x, 32):
    B[threadIdx_x] = A[threadIdx_x]`,
        "splitHostDevice: kernel f_kernel: threadIdx.x is bound with extent 16 in one place and 32 in another",
      ],
    };
    for (const [what, [body, message]] of Object.entries(cases)) {
      test(what, () => {
        const err = errorOf(() => splitHostDevice(parse(launchNest(body))), LoweringError);
        expect(err.message).toBe(message);
      });
    }
  });

  describe("launch bounds (tirx.launch_bounds_min_blocks_per_sm)", () => {
    function withAttrs(funcAttrs: string, body: string): string {
      return launchNest(body).replace('T.func_attr({"global_symbol": "f"})', `T.func_attr({"global_symbol": "f"${funcAttrs}})`);
    }
    const NEST = `
blockIdx_x = T.launch_thread("blockIdx.x", 2)
threadIdx_x = T.launch_thread("threadIdx.x", 32)
B[blockIdx_x * 32 + threadIdx_x] = A[blockIdx_x * 32 + threadIdx_x]`;

    test("none: no minimum in the launch metadata", () => {
      expect(splitHostDevice(parse(launchNest(NEST))).kernels[0]!.launch).not.toHaveProperty("minBlocksPerSM");
    });

    test("an attribute around the launch nest (an annotation of the blockIdx loop) sets it and leaves the kernel body", () => {
      const [k] = splitHostDevice(parse(launchNest(`T.attr(None, "tirx.launch_bounds_min_blocks_per_sm", 2)${NEST}`))).kernels;
      expect(k!.launch.minBlocksPerSM).toBe(2);
      expect(k!.body.kind === "AttrStmt" && k!.body.key).toBe("thread_extent");
    });

    test("an attribute inside the nest (an annotation of a block) is taken out of the kernel body", () => {
      const body = NEST.replace("B[blockIdx_x", 'T.attr(None, "tirx.launch_bounds_min_blocks_per_sm", 3)\nB[blockIdx_x');
      const [k] = splitHostDevice(parse(launchNest(body))).kernels;
      expect(k!.launch.minBlocksPerSM).toBe(3);
      let attrs = 0;
      forEachStmt(k!.body, (s) => void (s.kind === "AttrStmt" && s.key.includes("launch_bounds") && attrs++));
      expect(attrs).toBe(0);
    });

    test("the function attribute, in TVM HEAD's and the classic spelling, applies to every kernel", () => {
      for (const key of ["tirx.launch_bounds_min_blocks_per_sm", "tir.launch_bounds_min_blocks_per_sm"]) {
        const src = TWO_KERNELS.replace('T.func_attr({"global_symbol": "two_step"})', `T.func_attr({"global_symbol": "two_step", "${key}": 2})`);
        expect(splitHostDevice(parse(src)).kernels.map((k) => k.launch.minBlocksPerSM)).toEqual([2, 2]);
      }
    });

    test("kernels of one function may ask for different minimums", () => {
      const src = TWO_KERNELS.replace(
        'with T.launch_thread("blockIdx.x", 4)',
        'T.attr(None, "tirx.launch_bounds_min_blocks_per_sm", 4)\n    with T.launch_thread("blockIdx.x", 4)',
      );
      expect(splitHostDevice(parse(src)).kernels.map((k) => k.launch.minBlocksPerSM)).toEqual([undefined, 4]);
    });

    const errors: Record<string, [string, string]> = {
      "two annotations of one kernel with different values": [
        launchNest(
          `T.attr(None, "tirx.launch_bounds_min_blocks_per_sm", 2)${NEST.replace("B[blockIdx_x", 'T.attr(None, "tirx.launch_bounds_min_blocks_per_sm", 4)\nB[blockIdx_x')}`,
        ),
        "splitHostDevice: kernel f_kernel: conflicting tirx.launch_bounds_min_blocks_per_sm values: 2 from an attribute in the launch nest (a launch_bounds_min_blocks_per_sm annotation) and 4 from an attribute in the launch nest (a launch_bounds_min_blocks_per_sm annotation); a kernel has one __launch_bounds__, so annotate one loop or block of its launch nest (or agree on the value)",
      ],
      "the function attribute against an annotation": [
        withAttrs(', "tirx.launch_bounds_min_blocks_per_sm": 1', `T.attr(None, "tirx.launch_bounds_min_blocks_per_sm", 2)${NEST}`),
        "splitHostDevice: kernel f_kernel: conflicting tirx.launch_bounds_min_blocks_per_sm values: 1 from the function attribute tirx.launch_bounds_min_blocks_per_sm and 2 from an attribute in the launch nest",
      ],
      "the two spellings of the function attribute disagreeing": [
        withAttrs(', "tirx.launch_bounds_min_blocks_per_sm": 1, "tir.launch_bounds_min_blocks_per_sm": 3', NEST),
        "conflicting tirx.launch_bounds_min_blocks_per_sm values: 1 from the function attribute tirx.launch_bounds_min_blocks_per_sm and 3 from the function attribute tir.launch_bounds_min_blocks_per_sm",
      ],
      "a function attribute of zero": [
        withAttrs(', "tirx.launch_bounds_min_blocks_per_sm": 0', NEST),
        "splitHostDevice: kernel f_kernel: the function attribute tirx.launch_bounds_min_blocks_per_sm must be a positive integer (the minimum of resident blocks per SM), got the number 0",
      ],
      "a string attribute value around the nest": [
        launchNest(`T.attr(None, "tirx.launch_bounds_min_blocks_per_sm", "2")${NEST}`),
        'splitHostDevice: function f: the attribute tirx.launch_bounds_min_blocks_per_sm must be a positive integer (the minimum of resident blocks per SM), got the expression "2"',
      ],
      "a negative attribute value inside the nest": [
        launchNest(NEST.replace("B[blockIdx_x", 'T.attr(None, "tir.launch_bounds_min_blocks_per_sm", -1)\nB[blockIdx_x')),
        "splitHostDevice: kernel f_kernel: the attribute tir.launch_bounds_min_blocks_per_sm must be a positive integer (the minimum of resident blocks per SM), got the expression -1",
      ],
    };
    for (const [what, [src, message]] of Object.entries(errors)) {
      test(`error: ${what}`, () => {
        expect(errorOf(() => splitHostDevice(parse(src)), LoweringError).message).toContain(message);
      });
    }
  });
});
