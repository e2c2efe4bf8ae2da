import { printTVMScript, structuralEqual } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { AnnotationKeyNotFoundError, Schedule, ScheduleUsageError } from "../src/index.js";
import { expectScheduleError, parse } from "./loops-fixtures.js";

const FUNC = `
@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for i, j in T.grid(16, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
`;

describe("annotate / unannotate", () => {
  it("annotates blocks and loops with every value kind", () => {
    const sch = new Schedule(parse(FUNC));
    const b = sch.getBlock("B");
    const [i, j] = sch.getLoops(b);
    const [, v] = sch.samplePerfectTile(j!, 2, 16, [1, 16]);
    sch.annotate(b, "meta_schedule.tiling_structure", "SSRSRS");
    sch.annotate(b, "flag", true);
    sch.annotate(b, "ratio", 0.5);
    sch.annotate(i!, "pragma_auto_unroll_max_step", v!);
    sch.annotate(j!, "list", [1, "two", 3]);
    expect(sch.get(b).annotations).toEqual({ "meta_schedule.tiling_structure": "SSRSRS", flag: true, ratio: 0.5 });
    expect(sch.get(i!).annotations).toEqual({ pragma_auto_unroll_max_step: 16 });
    expect(sch.get(j!).annotations).toEqual({ list: [1, "two", 3] });
    const text = printTVMScript(sch.func);
    expect(text).toContain('for i in T.serial(16, annotations={"pragma_auto_unroll_max_step": 16}):');
    expect(text).toContain('T.block_attr({"meta_schedule.tiling_structure": "SSRSRS", "flag": T.bool(True), "ratio": 0.5})');
    // Handles stay valid.
    expect(sch.get(b).name).toBe("B");
  });

  it("is a silent no-op for an existing key (first value wins), but still traced", () => {
    const sch = new Schedule(parse(FUNC));
    const b = sch.getBlock("B");
    sch.annotate(b, "k", 1);
    const before = sch.func;
    sch.annotate(b, "k", 2);
    expect(sch.get(b).annotations).toEqual({ k: 1 });
    expect(structuralEqual(sch.func, before)).toBe(true);
    expect(sch.trace.instructions.at(-1)!.kind.name).toBe("Annotate");
  });

  it("unannotate removes a key and fails on a missing one", () => {
    const sch = new Schedule(parse(FUNC));
    const b = sch.getBlock("B");
    const [i] = sch.getLoops(b);
    sch.annotate(i!, "k", 1);
    sch.annotate(i!, "m", "x");
    sch.unannotate(i!, "k");
    expect(sch.get(i!).annotations).toEqual({ m: "x" });
    expectScheduleError(sch, () => sch.unannotate(i!, "k"), AnnotationKeyNotFoundError, "Cannot find annotation key: k");
    expectScheduleError(sch, () => sch.unannotate(b, "k"), AnnotationKeyNotFoundError, "Cannot find annotation key: k");
  });

  it("rejects unsupported values", () => {
    const sch = new Schedule(parse(FUNC));
    const b = sch.getBlock("B");
    expectScheduleError(sch, () => sch.annotate(b, "k", null as never), ScheduleUsageError, "an annotation value must be");
    expectScheduleError(sch, () => sch.annotate(b, "k", { a: 1 } as never), ScheduleUsageError, "an annotation value must be");
  });

  it("renders trace calls", () => {
    const sch = new Schedule(parse(FUNC));
    const b = sch.getBlock("B");
    sch.annotate(b, "key", 1);
    sch.unannotate(b, "key");
    const [ann, unann] = sch.trace.instructions.slice(-2);
    expect(ann!.kind.formatArgs(["b0", "1"], ann!.attrs, undefined)).toBe('b0, "key", 1');
    expect(unann!.kind.formatArgs(["b0"], unann!.attrs, undefined)).toBe('b0, "key"');
  });
});
