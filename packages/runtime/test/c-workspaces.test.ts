/**
 * Heap workspaces of the C target (codegen's c/stmt.ts): allocated on the first call and kept,
 * so later calls touch no fresh pages. Regression: the layout buffers of a tuned 1024³ matmul were
 * allocated and freed on every call, which page-faulted 8 MB in again per call whenever the C
 * library returned the blocks to the kernel — in some processes and not others, so the tuned
 * program ran a third slower when rebuilt than in the tuning's runner.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parsePrimFunc } from "@tessera/ir";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "@tessera/runtime";
import { cTargetUnavailable } from "./support/c-target-available.js";

const cacheDir = mkdtempSync(join(tmpdir(), "tessera-c-workspace-test-"));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

// 40 MB: above glibc's largest mmap threshold (32 MB), so a freed block always goes back to the kernel.
const N = 10 * 1024 * 1024;
const PAGE_FLOATS = 1024;

const twoStages = parsePrimFunc(`
@T.prim_func
def two_stages(A: T.Buffer((${N},), "float32"), C: T.Buffer((${N},), "float32")):
    T.func_attr({"global_symbol": "two_stages"})
    B = T.alloc_buffer((${N},), "float32")
    for i in range(${N}):
        with T.block("B"):
            vi = T.axis.spatial(${N}, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(${N}):
        with T.block("C"):
            vi = T.axis.spatial(${N}, i)
            C[vi] = B[vi] + T.float32(1)
`);

/** Inputs without drawing 20 M random numbers: a constant with every 4099th element its index. */
function inputs(): [Float32Array, Float32Array] {
  const A = new Float32Array(N).fill(0.5);
  for (let i = 0; i < N; i += 4099) A[i] = i;
  return [A, new Float32Array(N)];
}

describe.skipIf(cTargetUnavailable() !== undefined)("C target: heap workspaces", () => {
  it("a large intermediate is allocated once: later calls page-fault far less than its size, and stay correct", async () => {
    const mod = await build(twoStages, "c", { cacheDir });
    expect(mod.generated.workspaceBytes).toEqual([N * 4]);
    const [A, C] = inputs();
    mod(A, C);
    const before = process.resourceUsage().minorPageFault;
    for (let call = 0; call < 3; call++) mod(A, C);
    const faults = process.resourceUsage().minorPageFault - before;
    // Re-allocating the workspace on every call would fault in its N / PAGE_FLOATS pages each time.
    expect(faults).toBeLessThan(N / PAGE_FLOATS / 4);
    for (let i = 0; i < N; i += 4099) expect(C[i]).toBe(Math.fround(Math.fround(A[i]! * 2) + 1));
    expect(C[1]).toBe(2);
    mod.dispose();
  });

  it("dispose frees the workspaces: a module built again allocates and computes afresh", async () => {
    const first = await build(twoStages, "c", { cacheDir });
    const [A, C] = inputs();
    first(A, C);
    first.dispose();
    const again = await build(twoStages, "c", { cacheDir });
    const before = process.resourceUsage().minorPageFault;
    again(A, C);
    // The library stays mapped (RTLD_NODELETE): the freed slot is allocated, and faulted in, again.
    expect(process.resourceUsage().minorPageFault - before).toBeGreaterThan(N / PAGE_FLOATS / 2);
    expect(C[4099]).toBe(Math.fround(4099 * 2 + 1));
    again.dispose();
  });
});
