/**
 * `tessera simulate`. The lowering pipeline is replaced by a test double that returns a
 * hand-written lowered window-sum kernel (correct, without its barrier, or with an off-by-one
 * store), so these tests check the command itself: loading, simulation, comparison, exit codes.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loweredWindowSumScript } from "@tessera/corpus";
import { parsePrimFunc } from "@tessera/ir";
import type { CudaTarget } from "@tessera/codegen";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { runCli } from "../src/index.js";
import { captureIO } from "./capture.js";

const lowered = vi.hoisted(() => ({ variant: "correct" as "correct" | "no-barrier" | "off-by-one", calls: [] as string[] }));

function windowSumKernel(): string {
  return loweredWindowSumScript({
    sync: lowered.variant !== "no-barrier",
    ...(lowered.variant === "off-by-one" ? { outputIndex: "blockIdx_x * 64 + threadIdx_x + 1" } : {}),
  });
}

vi.mock("@tessera/codegen", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@tessera/codegen")>();
  return {
    ...actual,
    lower: (_func: unknown, target: CudaTarget) => {
      lowered.calls.push(target.name);
      return actual.moduleFromKernelFunc(parsePrimFunc(windowSumKernel()), { name: "window_sum", target });
    },
  };
});

const dir = mkdtempSync(join(tmpdir(), "tessera-simulate-"));
const WINDOW_SUM = join(dir, "window_sum.py");
writeFileSync(
  WINDOW_SUM,
  `
@T.prim_func
def window_sum(A: T.Buffer((258,), "float32"), B: T.Buffer((256,), "float32")):
    for i in range(256):
        with T.block("B"):
            vi = T.axis.spatial(256, i)
            B[vi] = A[vi] + A[vi + 1] + A[vi + 2]
`,
);

beforeEach(() => {
  lowered.variant = "correct";
  lowered.calls = [];
});

describe("tessera simulate", () => {
  it("prints the kernels and the comparison and exits 0 when the kernel matches", async () => {
    const io = captureIO();
    expect(await runCli(["simulate", WINDOW_SUM, "--seed", "5"], io)).toBe(0);
    expect(lowered.calls).toEqual(["nvidia/tesla-t4"]);
    expect(io.out).toContain("window_sum_kernel: grid (4, 1, 1), block (64, 1, 1), 264 B shared, 1 barrier per block");
    expect(io.out).toContain("(seed 5");
    expect(io.out).toContain("B: 256 elements, 0 mismatches");
    expect(io.out).toContain("OK: window_sum on nvidia/tesla-t4 matches the sequential executor");
    expect(io.err).toBe("");
  });

  it("passes --target to lower", async () => {
    const io = captureIO();
    expect(await runCli(["simulate", WINDOW_SUM, "--target", "nvidia/a100"], io)).toBe(0);
    expect(lowered.calls).toEqual(["nvidia/a100"]);
  });

  it("exits 1 and names the race when the barrier is missing", async () => {
    lowered.variant = "no-barrier";
    const io = captureIO();
    expect(await runCli(["simulate", WINDOW_SUM], io)).toBe(1);
    expect(io.out).toMatch(/write-after-read race on shared memory A_shared\[1\] in kernel window_sum_kernel, block \(0, 0, 0\): thread \(1, 0, 0\)/);
    expect(io.out).toMatch(/FAILED: window_sum on nvidia\/tesla-t4: \d+ mismatching output elements, \d+ shared-memory races/);
  });

  it("exits 1 with the thread, block, buffer and index of an out-of-bounds access", async () => {
    lowered.variant = "off-by-one";
    const io = captureIO();
    expect(await runCli(["simulate", WINDOW_SUM], io)).toBe(1);
    expect(io.out).toContain("FAILED: window_sum on nvidia/tesla-t4: out-of-bounds store to buffer B");
    expect(io.out).toContain("block (3, 0, 0), thread (63, 0, 0): index 256 is outside the valid range [0, 256)");
  });

  it("--bank-conflicts adds the table of shared-memory wavefronts per access site", async () => {
    const io = captureIO();
    expect(await runCli(["simulate", WINDOW_SUM, "--bank-conflicts"], io)).toBe(0);
    expect(io.out).toContain("shared-memory bank conflicts (32 banks of 4 B; warp-level accesses of all blocks):");
    // 4 blocks of 2 warps; the fetch's second round (66 inputs for 64 threads) is one more
    // instruction per block, by lanes 0 and 1 of warp 0. Consecutive words: no conflict.
    expect(io.out).toMatch(/A_shared\[ax0_0 \* 64 \+ threadIdx_x\]\s+store\s+4\s+12\s+12\s+12\s+0\s+1\.00\s+1-way/);
    expect(io.out).toMatch(/A_shared\[threadIdx_x \+ 2\]\s+load\s+4\s+8\s+8\s+8\s+0\s+1\.00\s+1-way/);
    expect(io.out).toMatch(/total\s+36\s+36\s+36\s+0\s+1\.00\s+1-way/);
    expect(io.out).toContain("OK: window_sum");
    const plain = captureIO();
    expect(await runCli(["simulate", WINDOW_SUM], plain)).toBe(0);
    expect(plain.out).not.toContain("bank conflicts");
  });

  it("rejects bad invocations with exit 2", async () => {
    const usage = captureIO();
    expect(await runCli(["simulate"], usage)).toBe(2);
    expect(usage.err).toContain("usage: tessera simulate FILE");
    const target = captureIO();
    expect(await runCli(["simulate", WINDOW_SUM, "--target", "nvidia/gtx-9000"], target)).toBe(2);
    expect(target.err).toContain('unknown target "nvidia/gtx-9000"');
    const seed = captureIO();
    expect(await runCli(["simulate", WINDOW_SUM, "--seed", "x"], seed)).toBe(2);
    const missing = captureIO();
    expect(await runCli(["simulate", join(dir, "nope.py")], missing)).toBe(2);
    expect(missing.err).toContain("nope.py");
  });
});
