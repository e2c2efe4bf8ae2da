import { describe, expect, it } from "vitest";
import { occupancyLimits, theoreticalOccupancy } from "../src/index.js";

// H100 SXM: 2048 threads, 64K registers, 228 KiB shared memory per multiprocessor.
const H100 = occupancyLimits("sm_90", {
  maxThreadsPerMultiprocessor: 2048,
  registersPerMultiprocessor: 65536,
  sharedMemPerMultiprocessor: 233472,
  warpSize: 32,
});
// T4: 1024 threads, 64K registers, 64 KiB shared memory.
const T4 = occupancyLimits("sm_75", { maxThreadsPerMultiprocessor: 1024, registersPerMultiprocessor: 65536, sharedMemPerMultiprocessor: 65536, warpSize: 32 });

describe("theoreticalOccupancy", () => {
  it("128 registers × 256 threads: two blocks, a quarter of the warp slots, register-limited", () => {
    expect(theoreticalOccupancy({ threadsPerBlock: 256, registersPerThread: 128, sharedBytesPerBlock: 16640 }, H100)).toEqual({
      blocksPerMultiprocessor: 2,
      fraction: 0.25,
      limitedBy: "registers",
    });
  });

  it("rounds registers up to the per-warp allocation unit (129 registers cost as much as 136)", () => {
    const at = (regs: number) => theoreticalOccupancy({ threadsPerBlock: 256, registersPerThread: regs, sharedBytesPerBlock: 0 }, H100).blocksPerMultiprocessor;
    expect(at(129)).toBe(at(136));
    expect(at(64)).toBe(4);
    expect(at(32)).toBe(8);
  });

  it("shared memory counts the 1 KiB per block the system reserves from sm_80 on", () => {
    const occ = theoreticalOccupancy({ threadsPerBlock: 128, registersPerThread: 32, sharedBytesPerBlock: 48 * 1024 }, H100);
    expect(occ).toMatchObject({ blocksPerMultiprocessor: 4, limitedBy: "shared memory" });
    expect(theoreticalOccupancy({ threadsPerBlock: 128, registersPerThread: 32, sharedBytesPerBlock: 32 * 1024 }, T4)).toMatchObject({
      blocksPerMultiprocessor: 2,
      limitedBy: "shared memory",
    });
  });

  it("small blocks hit the resident-block limit, large ones the thread limit", () => {
    expect(theoreticalOccupancy({ threadsPerBlock: 32, registersPerThread: 16, sharedBytesPerBlock: 0 }, H100)).toEqual({
      blocksPerMultiprocessor: 32,
      fraction: 0.5,
      limitedBy: "blocks",
    });
    expect(theoreticalOccupancy({ threadsPerBlock: 1024, registersPerThread: 16, sharedBytesPerBlock: 0 }, T4)).toEqual({
      blocksPerMultiprocessor: 1,
      fraction: 1,
      limitedBy: "threads",
    });
  });
});
