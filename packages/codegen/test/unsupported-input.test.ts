/** What lower() refuses before any pass runs: predicated vector accesses (as TVM's C and CUDA generators), scalable vectors and stepped loops. */
import { parsePrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { LoweringError, lower } from "../src/index.js";

const header = ["@T.prim_func", 'def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):'];

describe("predicated accesses in lowering", () => {
  it("a predicated store is refused for C and CUDA, naming the buffer and the mask", () => {
    const f = parsePrimFunc([...header, "    B.vstore([T.Ramp(0, 2, 4)], T.Broadcast(T.float32(1), 4), predicate=T.Broadcast(T.bool(True), 4))"].join("\n"));
    for (const target of ["c", "cuda"]) {
      expect(() => lower(f, target)).toThrow(LoweringError);
      expect(() => lower(f, target)).toThrow(/Predicated buffer store is not supported \(the store to B under the mask/);
    }
  });

  it("a predicated load is refused too", () => {
    const f = parsePrimFunc([...header, "    B[0:4] = A.vload([T.Ramp(0, 1, 4)], predicate=T.Broadcast(T.bool(True), 4))"].join("\n"));
    expect(() => lower(f, "c")).toThrow(/Predicated buffer load is not supported \(the load of A under the mask/);
  });

  it("a loop with a step is refused, naming the loop", () => {
    const f = parsePrimFunc([...header, "    for i in range(0, 8, 2):", "        B[i] = A[i]"].join("\n"));
    for (const target of ["c", "cuda"]) expect(() => lower(f, target)).toThrow(/loop i has a step \(2\); lowering needs unit-step loops/);
  });

  it("a scalable vector (vscale × k lanes) is refused for every target, naming the expression and its dtype", () => {
    const f = parsePrimFunc([...header, "    B[0 : T.vscale() * 4] = A[0 : T.vscale() * 4]"].join("\n"));
    for (const target of ["c", "cuda", "webgpu"]) {
      expect(() => lower(f, target)).toThrow(/scalable vectors are not supported by our targets: .* has dtype (float32|int32)xvscalex4/);
    }
  });
});
