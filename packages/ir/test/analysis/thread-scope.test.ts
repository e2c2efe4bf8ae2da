/** Which storage scopes may be relaxed over which thread-bound loops (TVM's CanRelaxStorageUnderThread). */
import { describe, expect, it } from "vitest";
import { type StorageScope, canRelaxStorageUnderThread, isGlobalScope, isLaunchTag, isVirtualThreadTag } from "../../src/index.js";

describe("thread scopes", () => {
  it.each<[StorageScope, string, boolean]>([
    ["global", "blockIdx.x", true],
    ["global", "threadIdx.y", true],
    ["shared", "threadIdx.x", true],
    ["shared", "vthread.x", true],
    ["shared", "blockIdx.x", false],
    ["shared.dyn", "threadIdx.z", true],
    ["warp", "threadIdx.x", true],
    ["warp", "threadIdx.y", false],
    ["warp", "vthread", false],
    ["local", "threadIdx.x", false],
    ["local", "blockIdx.y", false],
    ["shared", "not-a-thread", false],
  ])("%s over %s: %s", (scope, tag, relaxed) => {
    expect(canRelaxStorageUnderThread(scope, tag)).toBe(relaxed);
  });

  it("classifies tags and scopes", () => {
    expect(isLaunchTag("blockIdx.z") && isLaunchTag("threadIdx.x")).toBe(true);
    expect(isLaunchTag("vthread.x")).toBe(false);
    expect(isVirtualThreadTag("vthread.y") && isVirtualThreadTag("cthread")).toBe(true);
    expect(isGlobalScope("global") && !isGlobalScope("shared")).toBe(true);
  });
});
