import { ANNOTATION_KEYS, intImm, printTVMScript, structuralEqual } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { AnnotationKeyNotFoundError, AnnotationValueTypeError } from "../src/error-catalogue.js";
import { Schedule, ScheduleUsageError, Trace } from "../src/index.js";
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

describe("annotate: values of the keys the compiler understands", () => {
  type Value = Parameters<Schedule["annotate"]>[2];
  /** key → [loop or block, an accepted value, a rejected value, what the message says it got] */
  const cases: [string, "loop" | "block", Value, Value, string][] = [
    ["pragma_auto_unroll_max_step", "loop", 64, -1, "the number -1"],
    ["pragma_auto_unroll_max_step", "block", 0, "16", 'the string "16"'],
    ["pragma_unroll_explicit", "loop", true, 2, "the number 2"],
    ["pragma_unroll_explicit", "loop", 0, "yes", 'the string "yes"'],
    ["software_pipeline_stage", "loop", [0, 0, 1], [0, -1], "the array [0, -1]"],
    ["software_pipeline_order", "loop", [0, 2, 1], 3, "the number 3"],
    ["software_pipeline_async_stages", "loop", [0], [0.5], "the array [0.5]"],
    ["meta_schedule.cooperative_fetch", "block", 4, 1.5, "the number 1.5"],
    ["meta_schedule.unroll_explicit", "block", 512, true, "the boolean true"],
    ["meta_schedule.unroll_implicit", "block", 16, [16], "the array [16]"],
    ["launch_bounds_min_blocks_per_sm", "loop", 2, 0, "the number 0"],
    ["launch_bounds_min_blocks_per_sm", "block", 1, -2, "the number -2"],
  ];
  for (const [key, site, good, bad, got] of cases) {
    it(`${key} on a ${site}: accepts ${JSON.stringify(good)}, rejects ${JSON.stringify(bad)}`, () => {
      const sch = new Schedule(parse(FUNC));
      const b = sch.getBlock("B");
      const [i] = sch.getLoops(b);
      const target = site === "loop" ? i! : b;
      const owner = site === "loop" ? "loop i" : "block B";
      const expected = ANNOTATION_KEYS.find((k) => k.key === key)!.expected;
      const err = expectScheduleError(
        sch,
        () => sch.annotate(target, key, bad),
        AnnotationValueTypeError,
        `The annotation "${key}" of ${owner} expects ${expected}, got ${got}.`,
      );
      expect(err.message).toContain("An error occurred in the schedule primitive 'annotate'");
      sch.annotate(target, key, good);
      const annotations = site === "loop" ? sch.get(i!).annotations : sch.get(b).annotations;
      expect(annotations[key]).toEqual(good);
    });
  }

  it("the wrong type is an error even where the key is already set (the no-op comes after the check)", () => {
    const sch = new Schedule(parse(FUNC));
    const [i] = sch.getLoops(sch.getBlock("B"));
    sch.annotate(i!, "pragma_auto_unroll_max_step", 16);
    expectScheduleError(sch, () => sch.annotate(i!, "pragma_auto_unroll_max_step", "16"), AnnotationValueTypeError, "expects a non-negative integer");
  });

  it("a sampled ExprRV is checked as the integer it was sampled to", () => {
    const sch = new Schedule(parse(FUNC));
    const b = sch.getBlock("B");
    const v = sch.sampleCategorical([-4, 8], [1, 0], 0);
    expectScheduleError(sch, () => sch.annotate(b, "pragma_auto_unroll_max_step", v), AnnotationValueTypeError, "got the number -4");
    expect(sch.trace.instructions.at(-1)!.kind.name).toBe("SampleCategorical");
    expectScheduleError(
      sch,
      () => sch.annotate(b, "launch_bounds_min_blocks_per_sm", v),
      AnnotationValueTypeError,
      "expects a positive integer, got the number -4",
    );
    sch.annotate(b, "meta_schedule.unroll_explicit", v); // any integer
    expect(sch.get(b).annotations["meta_schedule.unroll_explicit"]).toBe(-4);
  });

  it("buffer_dim_align takes integer 4-tuples (what storageAlign writes)", () => {
    const sch = new Schedule(parse(FUNC));
    const b = sch.getBlock("B");
    expectScheduleError(
      sch,
      () => sch.annotate(b, "buffer_dim_align", [1, 2, 3, 4]),
      AnnotationValueTypeError,
      "expects an array of [buffer_index, axis, factor, offset] integer 4-tuples, got the array [1, 2, 3, 4]",
    );
    sch.annotate(b, "buffer_dim_align", [[0, 0, 32, 1]]);
    expect(sch.get(b).annotations["buffer_dim_align"]).toEqual([[0, 0, 32, 1]]);
  });

  it("unknown keys keep taking any value", () => {
    const sch = new Schedule(parse(FUNC));
    const b = sch.getBlock("B");
    sch.annotate(b, "pragma_unroll_explicit_typo", "anything");
    sch.annotate(b, "software_pipeline", [-1, "x"]);
    expect(sch.get(b).annotations).toEqual({ pragma_unroll_explicit_typo: "anything", software_pipeline: [-1, "x"] });
  });

  it("the registry's IR-level checks accept integer IntImm values, not boolean ones, for integer keys", () => {
    const spec = (key: string) => ANNOTATION_KEYS.find((k) => k.key === key)!;
    expect(spec("pragma_auto_unroll_max_step").accepts(intImm(16))).toBe(true);
    expect(spec("pragma_auto_unroll_max_step").accepts(intImm(1, "bool"))).toBe(false);
    expect(spec("pragma_unroll_explicit").accepts(intImm(1, "bool"))).toBe(true);
    expect(spec("pragma_auto_unroll_max_step").accepts(2 ** 31)).toBe(false);
  });

  it("typed values survive the trace: printing, JSON in both formats, and replay", () => {
    const sch = new Schedule(parse(FUNC));
    const b = sch.getBlock("B");
    const [i, j] = sch.getLoops(b);
    sch.annotate(i!, "pragma_auto_unroll_max_step", 512);
    sch.annotate(i!, "pragma_unroll_explicit", true);
    sch.annotate(j!, "software_pipeline_stage", [0, 0, 1]);
    sch.annotate(j!, "software_pipeline_order", [0, 1, 2]);
    sch.annotate(b, "launch_bounds_min_blocks_per_sm", 2);
    const text = sch.trace.show();
    expect(text).toContain('sch.annotate(l1, "pragma_unroll_explicit", true);');
    expect(text).toContain('sch.annotate(l2, "software_pipeline_stage", [0, 0, 1]);');
    for (const json of [sch.trace.toJSON(), sch.trace.toTVMJSON()]) {
      const replayed = new Schedule(parse(FUNC));
      Trace.fromJSON(JSON.parse(JSON.stringify(json))).applyTo(replayed);
      expect(structuralEqual(replayed.func, sch.func)).toBe(true);
    }
    const tampered = sch.trace.toJSON();
    tampered.instructions[4]!.inputs[1] = [0, -1, 1];
    expect(() => Trace.fromJSON(tampered).applyTo(new Schedule(parse(FUNC)))).toThrow(
      /software_pipeline_stage" of loop j expects an array of non-negative integers, got the array \[0, -1, 1\]/,
    );
  });
});
