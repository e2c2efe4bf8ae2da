import type { DeviceKernel, LoweredModule } from "@tessera/codegen";
import { describe, expect, it } from "vitest";
import { simulate } from "../src/index.js";
import { moduleFromLoweredScript } from "./helpers.js";

/** `kernel` with its buffer parameters re-sourced (`param` index or `workspace` index). */
function withSources(kernel: DeviceKernel, sources: ReadonlyArray<{ kind: "param" | "workspace"; index: number }>): DeviceKernel {
  return { ...kernel, params: kernel.params.map((p, i) => (p.kind === "buffer" ? { ...p, source: sources[i]! } : p)) };
}

describe("modules", () => {
  it("runs kernels in launch order through a poisoned workspace", () => {
    const scale = moduleFromLoweredScript(
      `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), W: T.Buffer((64,), "float32")):
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    W[blockIdx_x * 32 + threadIdx_x] = A[blockIdx_x * 32 + threadIdx_x] * T.float32(2)
`,
      "scale",
    );
    const shift = moduleFromLoweredScript(
      `
@T.prim_func
def main(W: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 64)
    B[threadIdx_x] = W[threadIdx_x] + T.float32(1)
`,
      "shift",
    );
    const source = moduleFromLoweredScript(`
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 64)
    B[threadIdx_x] = A[threadIdx_x]
`).source;
    const module: LoweredModule = {
      name: "scale_shift",
      target: scale.target,
      source,
      workspaces: [{ name: "W", dtype: "float32", elements: 64 }],
      kernels: [
        withSources(scale.kernels[0]!, [
          { kind: "param", index: 0 },
          { kind: "workspace", index: 0 },
        ]),
        withSources(shift.kernels[0]!, [
          { kind: "workspace", index: 0 },
          { kind: "param", index: 1 },
        ]),
      ],
      stages: [],
    };
    const a = Float32Array.from({ length: 64 }, (_, i) => i);
    const b = new Float32Array(64);
    const report = simulate(module, [a, b]);
    expect([...b]).toEqual(Array.from({ length: 64 }, (_, i) => 2 * i + 1));
    expect(report.kernels.map((k) => [k.kernel, k.grid, k.block])).toEqual([
      ["scale_kernel", [2, 1, 1], [32, 1, 1]],
      ["shift_kernel", [1, 1, 1], [64, 1, 1]],
    ]);
  });

  it("checks the launch metadata against the body's thread_extent attributes", () => {
    const m = moduleFromLoweredScript(`
@T.prim_func
def main(A: T.Buffer((64,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 64)
    A[threadIdx_x] = T.float32(1)
`);
    const kernel = m.kernels[0]!;
    const wrong: LoweredModule = { ...m, kernels: [{ ...kernel, launch: { ...kernel.launch, block: [32, 1, 1] } }] };
    expect(() => simulate(wrong, [new Float32Array(64)])).toThrow(/block \[32, 1, 1\] differs from the body's thread_extent attributes \[64, 1, 1\]/);
  });
});
