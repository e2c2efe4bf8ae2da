/** `tessera build --target webgpu --emit wgsl|launch` and `--target metal --emit metal`. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { printTVMScript, vectorAdd } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/index.js";
import { captureIO } from "./capture.js";

const dir = mkdtempSync(join(tmpdir(), "tessera-build-shader-"));
const sch = new Schedule(vectorAdd(1000).func);
const [i] = sch.getLoops(sch.getBlock("C")) as [LoopRV];
const [bx, tx] = sch.split(i, [null, 128]) as [LoopRV, LoopRV];
sch.bind(bx, "blockIdx.x");
sch.bind(tx, "threadIdx.x");
const scheduledFile = join(dir, "vadd.py");
writeFileSync(scheduledFile, printTVMScript(sch.func, { funcName: "vadd" }));

async function build(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO();
  const code = await runCli(["build", scheduledFile, ...args], io);
  return { code, out: io.out, err: io.err };
}

describe("tessera build for WebGPU and Metal", () => {
  it("--target webgpu prints WGSL by default, one storage buffer per parameter", async () => {
    const r = await build("--target", "webgpu");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("@group(0) @binding(2) var<storage, read_write> C : array<f32>;");
    expect(r.out).toContain("@compute @workgroup_size(128, 1, 1)");
    expect((await build("--target", "webgpu", "--emit", "wgsl")).out).toBe(r.out);
  });

  it("--emit launch prints the dispatch and the binding order as JSON", async () => {
    const r = await build("--target", "webgpu", "--emit", "launch");
    expect(r.code).toBe(0);
    const launch = JSON.parse(r.out) as { kernels: { grid: number[]; workgroupSize: number[]; bindings: { name: string }[] }[] };
    expect(launch.kernels[0]!.grid).toEqual([8, 1, 1]);
    expect(launch.kernels[0]!.workgroupSize).toEqual([128, 1, 1]);
    expect(launch.kernels[0]!.bindings.map((b) => b.name)).toEqual(["A", "B", "C"]);
  });

  it("--target metal --emit metal prints MSL", async () => {
    const r = await build("--target", "metal", "--emit", "metal");
    expect(r.code).toBe(0);
    expect(r.out).toContain("#include <metal_stdlib>");
    expect(r.out).toMatch(/kernel void \w+_kernel\(device const float\* A \[\[buffer\(0\)\]\]/);
  });

  it("refuses an emit the target has no artefact for, naming the choices", async () => {
    const r = await build("--target", "metal", "--emit", "cuda");
    expect(r.code).toBe(2);
    expect(r.err).toContain("--emit for the metal target metal must be one of metal, ir, got 'cuda'");
  });
});
