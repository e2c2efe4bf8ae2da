/**
 * Store coverage on the lowered window sum (four blocks of 64 threads writing B[256]) with its
 * output index rewritten: exact counts of written and doubly written elements, which threads
 * collide, and the kernels it refuses to judge.
 */
import type { DeviceBufferParam } from "@tessera/codegen";
import { attrStmt, binary, bufferLoad, bufferStore, call, floatImm, intImm, letStmt, variable } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { findThreadBindings } from "../src/launch.js";
import { kernelStoreCoverage } from "../src/store-coverage.js";
import { moduleStoreCoverage } from "../src/index.js";
import { moduleFromLoweredScript, windowSumKernel } from "./helpers.js";

const B_INDEX = 1;

function coverageOf(outputIndex: string): ReturnType<typeof moduleStoreCoverage> {
  return moduleStoreCoverage(moduleFromLoweredScript(windowSumKernel({ outputIndex })), B_INDEX);
}

function covered(outputIndex: string): NonNullable<Extract<ReturnType<typeof moduleStoreCoverage>, { supported: true }>["coverage"]> {
  const r = coverageOf(outputIndex);
  if (!r.supported) throw new Error(r.why);
  return r.coverage;
}

describe("store coverage of the window sum's output", () => {
  it("finds every element written once by the kernel as lowered, and nothing stored into its input", () => {
    const c = covered("blockIdx_x * 64 + threadIdx_x");
    expect(c).toMatchObject({ buffer: "B", elements: 256, writtenCount: 256, overlapCount: 0, grid: [4, 1, 1], block: [64, 1, 1] });
    expect(c.firstOverlap).toBeUndefined();
    const a = moduleStoreCoverage(moduleFromLoweredScript(windowSumKernel()), 0);
    expect(a.supported && a.coverage.writtenCount).toBe(0);
  });

  it("counts the elements blocks write over each other and those left out, naming the first pair of threads", () => {
    // Block b writes 32b .. 32b + 63: 32..127 twice, 160..255 never.
    const c = covered("blockIdx_x * 32 + threadIdx_x");
    expect(c.writtenCount).toBe(160);
    expect([...c.written.subarray(160)].every((w) => w === 0)).toBe(true);
    expect(c.overlapCount).toBe(96);
    // The writer of each element: 1 + block · 64 + thread, 0 for none, 2³² − 1 for several.
    expect([c.writers[0], c.writers[31], c.writers[32], c.writers[128], c.writers[159], c.writers[160]]).toEqual([
      1,
      32,
      2 ** 32 - 1,
      1 + 3 * 64 + 32,
      1 + 3 * 64 + 63,
      0,
    ]);
    expect(c.firstOverlap).toEqual({ element: 32, first: { block: [0, 0, 0], thread: [32, 0, 0] }, second: { block: [1, 0, 0], thread: [0, 0, 0] } });
  });

  it("counts two threads of one block writing the same element", () => {
    const c = covered("blockIdx_x * 64 + threadIdx_x // 2 * 2");
    expect(c.writtenCount).toBe(128);
    expect(c.overlapCount).toBe(128);
    expect(c.firstOverlap).toEqual({ element: 0, first: { block: [0, 0, 0], thread: [0, 0, 0] }, second: { block: [0, 0, 0], thread: [1, 0, 0] } });
  });

  it("refuses a kernel that hands an element of the output to an intrinsic", () => {
    const module = moduleFromLoweredScript(windowSumKernel());
    const kernel = module.kernels[0]!;
    const B = kernel.params[B_INDEX] as DeviceBufferParam;
    const evaluate = { kind: "Evaluate" as const, value: call("handle", "tir.address_of", [bufferLoad(B.buffer, [intImm(0)])]) };
    const withCall = { ...kernel, body: { kind: "SeqStmt" as const, seq: [evaluate, kernel.body] } };
    expect(kernelStoreCoverage(withCall, B_INDEX)).toEqual({
      supported: false,
      why: expect.stringMatching(/^B is written through .*address_of.*, which the store coverage does not model$/),
    });
  });
});

describe("the store slice", () => {
  it("leaves out a let the stores do not use, even one that loads, and keeps one they do", () => {
    const module = moduleFromLoweredScript(windowSumKernel());
    const kernel = module.kernels[0]!;
    const A = kernel.params[0] as DeviceBufferParam;
    const loaded = variable("loaded", "float32");
    const offset = variable("offset");
    const unusedLoad = { ...kernel, body: letStmt(loaded, bufferLoad(A.buffer, [intImm(0)]), kernel.body) };
    expect(kernelStoreCoverage(unusedLoad, B_INDEX)).toMatchObject({ supported: true, coverage: { writtenCount: 256 } });
    const B = kernel.params[B_INDEX] as DeviceBufferParam;
    // One block of 64 threads, each storing B[offset] with offset = 2 * threadIdx.x: the even elements below 128.
    const threadIdx = findThreadBindings(kernel.name, kernel.body).find((b) => b.tag === "threadIdx.x")!.variable;
    const store = bufferStore(B.buffer, floatImm(1), [offset]);
    const usedLet = {
      ...kernel,
      body: attrStmt("thread_extent", threadIdx, 64, letStmt(offset, binary("mul", threadIdx, 2), store)),
      launch: { ...kernel.launch, grid: [1, 1, 1] as [number, number, number] },
    };
    expect(kernelStoreCoverage(usedLet, B_INDEX)).toMatchObject({ supported: true, coverage: { writtenCount: 64, overlapCount: 0 } });
  });
});
