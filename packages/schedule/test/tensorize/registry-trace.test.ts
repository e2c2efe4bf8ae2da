/**
 * The tensor-intrinsic registry's checks, and traces of blockize and tensorize: recorded, printed
 * by show(), and replayed from that text and from JSON (ours and TVM's) to the same function.
 */
import { parsePrimFunc, structuralEqual } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { Schedule, TensorIntrin, TensorIntrinError, Trace, applyTraceText } from "../../src/index.js";
import { MMA_16, matmulNT } from "./fixtures.js";

const DESC_2 = `
@T.prim_func
def f(a: T.handle, c: T.handle):
    A = T.match_buffer(a, (2,), offset_factor=1)
    C = T.match_buffer(c, (2,), offset_factor=1)
    with T.block("root"):
        T.reads(A[0:2])
        T.writes(C[0:2])
        for i in range(2):
            with T.block("copy"):
                vi = T.axis.spatial(2, i)
                C[vi] = A[vi]
`;

describe("TensorIntrin registry", () => {
  it("registers from TVMScript text and looks intrinsics up by name", () => {
    const intrin = TensorIntrin.register("test_registry_copy2", DESC_2, DESC_2, { override: true });
    expect(TensorIntrin.get("test_registry_copy2")).toBe(intrin);
    expect(TensorIntrin.has("test_registry_copy2")).toBe(true);
    expect(TensorIntrin.names()).toContain("test_registry_copy2");
    expect(intrin.desc.params).toHaveLength(2);
  });

  it("refuses a second registration under one name unless overriding", () => {
    TensorIntrin.register("test_registry_twice", DESC_2, DESC_2, { override: true });
    expect(() => TensorIntrin.register("test_registry_twice", DESC_2, DESC_2)).toThrow('TensorIntrin "test_registry_twice" has already been registered');
  });

  it("names an unknown intrinsic", () => {
    expect(() => TensorIntrin.get("test_registry_missing")).toThrow(TensorIntrinError);
    expect(() => TensorIntrin.get("test_registry_missing")).toThrow('TensorIntrin "test_registry_missing" is not registered');
  });

  it("checks that description and implementation fit together", () => {
    const one = DESC_2.replace("a: T.handle, c: T.handle", "c: T.handle")
      .replace("    A = T.match_buffer(a, (2,), offset_factor=1)\n", "")
      .replace("T.reads(A[0:2])", "T.reads()")
      .replace("C[vi] = A[vi]", "C[vi] = T.float32(0)");
    expect(() => TensorIntrin.register("test_registry_bad", DESC_2, one)).toThrow("the description has 2 parameters and the implementation 1; they must match");
    const half = DESC_2.replace("A = T.match_buffer(a, (2,), offset_factor=1)", 'A = T.match_buffer(a, (2,), "float16", offset_factor=1)').replace(
      "C[vi] = A[vi]",
      'C[vi] = T.Cast("float32", A[vi])',
    );
    expect(() => TensorIntrin.register("test_registry_bad", DESC_2, half)).toThrow(
      "parameter 0 is float32 with 1 dimensions in the description but float16 with 1 in the implementation",
    );
    const scalar = `
@T.prim_func
def f(a: T.handle, n: T.int32):
    A = T.match_buffer(a, (2,), offset_factor=1)
    with T.block("root"):
        T.reads(A[0:2])
        T.writes(A[0:2])
        A[0] = A[1]
`;
    expect(() => TensorIntrin.register("test_registry_bad", scalar, scalar)).toThrow("parameter n of the description is not a buffer");
    const noRegion = DESC_2.replace("T.reads(A[0:2])", "T.reads()").replace("C[vi] = A[vi]", "C[vi] = T.float32(1)");
    expect(() => TensorIntrin.register("test_registry_bad", DESC_2, noRegion)).toThrow("the block of the implementation neither reads nor writes parameter A");
    expect(TensorIntrin.has("test_registry_bad")).toBe(false);
  });
});

function scheduled(): Schedule {
  const sch = new Schedule(matmulNT(32));
  const [i, j, k] = sch.getLoops(sch.getBlock("update"));
  const [i0, i1] = sch.split(i, [null, 16]);
  const [j0, j1] = sch.split(j, [null, 16]);
  const [k0, k1] = sch.split(k, [null, 16]);
  sch.reorder(i0, j0, k0, i1, j1, k1);
  const outer = sch.blockize(i1, { preserveUnitIters: false });
  sch.tensorize(outer, MMA_16);
  return sch;
}

describe("traces of blockize and tensorize", () => {
  it("show() prints both calls, and its text replays to the same function", () => {
    const sch = scheduled();
    const text = sch.trace.show();
    expect(text).toContain("const b10 = sch.blockize(l5, { preserveUnitIters: false });");
    expect(text).toContain(`sch.tensorize(b10, "${MMA_16}");`);
    const replayed = new Schedule(matmulNT(32));
    applyTraceText(text, replayed);
    expect(structuralEqual(replayed.func, sch.func)).toBe(true);
    expect(replayed.trace.show()).toBe(text);
  });

  it("round-trips through our JSON and TVM's", () => {
    const sch = scheduled();
    const json = sch.trace.toJSON();
    expect(json.instructions.find((x) => x.kind === "Blockize")?.attrs).toEqual([false]);
    expect(json.instructions.find((x) => x.kind === "Tensorize")?.attrs).toEqual([MMA_16, true]);
    for (const trace of [Trace.fromJSON(JSON.stringify(json)), Trace.fromJSON(sch.trace.toTVMJSON())]) {
      const replayed = new Schedule(matmulNT(32));
      trace.applyTo(replayed);
      expect(structuralEqual(replayed.func, sch.func)).toBe(true);
    }
  });

  it("replays TVM's spelling of the attributes (0/1 for preserve_unit_iters)", () => {
    const sch = new Schedule(parsePrimFunc(DESC_2.replace("def f(a: T.handle, c: T.handle):", "def f(a: T.handle, c: T.handle) -> None:")));
    const [i] = sch.getLoops(sch.getBlock("copy"));
    const viaMethod = sch.copy();
    viaMethod.blockize(i, { preserveUnitIters: false });
    sch.invoke("Blockize", [i!], [0]);
    expect(structuralEqual(sch.func, viaMethod.func)).toBe(true);
    expect(() => sch.copy().invoke("Blockize", [i!], ["yes"])).toThrow("preserve_unit_iters must be a boolean");
  });
});
