import { assertStructuralEqual, gemmReluAdd, structuralEqual } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { LoopRV, Schedule, Trace, TraceFormatError, TraceReplayError } from "../src/index.js";
import { FUNC, scheduleGemm } from "./trace-fixtures.js";

describe("trace.show", () => {
  it("prints an applyTrace function over the Schedule API", () => {
    const sch = new Schedule(gemmReluAdd(128).func, { seed: 5 });
    const b0 = sch.getBlock("gemm");
    const [l1, l2] = sch.getLoops(b0);
    const vs = sch.samplePerfectTile(l1!, 4, 64, [2, 4, 2, 8]);
    const [l8, l9] = sch.split(l1!, vs);
    const [l12, l13] = sch.split(l2!, [null, 32]);
    sch.reorder(l8!, l12!, l9!, l13!);
    const f = sch.fuse(l8!, l12!);
    sch.annotate(b0, "pragma_auto_unroll_max_step", sch.sampleCategorical([0, 16, 64], [0.25, 0.25, 0.5], 2));
    sch.bind(f, "blockIdx.x");
    expect(sch.trace.show()).toBe(`import type { Schedule } from "@tessera/schedule";

export function applyTrace(sch: Schedule): void {
  const b0 = sch.getBlock("gemm");
  const [l1, l2, l3] = sch.getLoops(b0);
  const [v4, v5, v6, v7] = sch.samplePerfectTile(l1, 4, 64, [2, 4, 2, 8]);
  const [l8, l9, l10, l11] = sch.split(l1, [v4, v5, v6, v7]);
  const [l12, l13] = sch.split(l2, [null, 32]);
  sch.reorder(l8, l12, l9, l13);
  const l14 = sch.fuse(l8, l12);
  const v15 = sch.sampleCategorical([0, 16, 64], [0.25, 0.25, 0.5], 2);
  sch.annotate(b0, "pragma_auto_unroll_max_step", v15);
  sch.bind(l14, "blockIdx.x");
}
`);
    expect(String(sch.trace)).toBe(sch.trace.show());
  });

  it("prints an empty trace and unsampled location marks", () => {
    const sch = new Schedule(FUNC);
    expect(sch.trace.show()).toBe('import type { Schedule } from "@tessera/schedule";\n\nexport function applyTrace(sch: Schedule): void {\n}\n');
    const relu = sch.getBlock("relu");
    sch.computeAt(relu, LoopRV.ROOT);
    const text = sch.trace.show({ functionName: "schedule" });
    expect(text).toContain('import { LoopRV, type Schedule } from "@tessera/schedule";');
    expect(text).toContain("export function schedule(sch: Schedule): void {");
    expect(text).toContain("  sch.computeAt(b0, LoopRV.ROOT);");
  });
});

describe("trace JSON", () => {
  it("round-trips: toJSON -> fromJSON -> toJSON", () => {
    const trace = scheduleGemm(7).trace;
    const json = trace.toJSON();
    expect(json.format).toBe("tessera-trace");
    expect(json.version).toBe(1);
    expect(json.instructions[4]).toEqual({ kind: "Split", inputs: ["l2", null, 32], attrs: [true, false], outputs: ["l12", "l13"] });
    expect(json.instructions[8]).toEqual({ kind: "Annotate", inputs: ["b0", "v15"], attrs: ["pragma_auto_unroll_max_step"], outputs: [] });
    expect(json.decisions.map(([i]) => i)).toEqual([2, 7, 11]);
    const text = JSON.stringify(trace);
    expect(Trace.fromJSON(text).toJSON()).toEqual(json);
    expect(Trace.fromJSON(json).toJSON()).toEqual(json);
    expect(Trace.fromJSON(json).show()).toBe(trace.show());
  });

  it("quotes string inputs as TVM does", () => {
    const sch = new Schedule(FUNC);
    sch.annotate(sch.getBlock("gemm"), "meta_schedule.tiling_structure", "SSRSRS");
    const json = sch.trace.toJSON();
    expect(json.instructions[1]!.inputs).toEqual(["b0", '"SSRSRS"']);
    const back = Trace.fromJSON(json);
    expect(back.instructions[1]!.inputs[1]).toBe("SSRSRS");
  });

  it("reads TVM's array format (GetSBlock, None, classic 1/0 flags)", () => {
    const tvm = [
      [
        ["GetSBlock", [], ["gemm", "main"], ["b0"]],
        ["GetLoops", ["b0"], [], ["l1", "l2", "l3"]],
        ["SamplePerfectTile", ["l1"], [4, 64], ["v4", "v5", "v6", "v7"]],
        ["Split", ["l1", "v4", "v5", "v6", "v7"], [1, 0], ["l8", "l9", "l10", "l11"]],
        ["Split", ["l2", "None", 32], [true, false], ["l12", "l13"]],
        ["Reorder", ["l8", "l12", "l9", "l13"], [], []],
        ["Fuse", ["l8", "l12"], [1], ["l14"]],
        ["Annotate", ["b0", '"SSR"'], ["meta_schedule.tiling_structure"], []],
      ],
      [[2, [2, 4, 2, 8]]],
    ];
    const trace = Trace.fromJSON(tvm);
    expect(trace.instructions.map((i) => i.kind.name)).toEqual(["GetBlock", "GetLoops", "SamplePerfectTile", "Split", "Split", "Reorder", "Fuse", "Annotate"]);
    expect(trace.instructions[3]!.attrs).toEqual([true, false]);
    expect(trace.instructions[4]!.inputs[1]).toBeNull();
    const sch = new Schedule(FUNC);
    trace.applyTo(sch);
    const direct = new Schedule(FUNC);
    const b0 = direct.getBlock("gemm");
    const [l1, l2] = direct.getLoops(b0);
    const [l8, l9] = direct.split(l1!, direct.samplePerfectTile(l1!, 4, 64, [2, 4, 2, 8]));
    const [l12, l13] = direct.split(l2!, [null, 32]);
    direct.reorder(l8!, l12!, l9!, l13!);
    direct.fuse(l8!, l12!);
    direct.annotate(b0, "meta_schedule.tiling_structure", "SSR");
    assertStructuralEqual(sch.func, direct.func);
    // And back out in TVM's layout.
    const out = sch.trace.toTVMJSON();
    expect(out[0][4]).toEqual(["Split", ["l2", "None", 32], [true, false], ["l12", "l13"]]);
    expect(out[1]).toEqual([[2, [2, 4, 2, 8]]]);
    expect(Trace.fromJSON(out).toJSON()).toEqual(sch.trace.toJSON());
  });
});

describe("trace replay", () => {
  it("reproduces the schedule structurally on a fresh schedule", () => {
    for (const seed of [1, 99, 123_456_789]) {
      const sch = scheduleGemm(seed);
      const fresh = new Schedule(FUNC, { seed: 4242 });
      const map = sch.trace.applyTo(fresh);
      assertStructuralEqual(fresh.func, sch.func);
      expect(fresh.trace.toJSON()).toEqual(sch.trace.toJSON());
      // Handles map to live handles of the new schedule.
      const b0 = sch.trace.instructions[0]!.outputs[0]!;
      expect(fresh.get(map.get(b0) as never)).toBeDefined();
      // Through JSON too.
      const viaJSON = new Schedule(FUNC);
      Trace.fromJSON(JSON.stringify(sch.trace)).applyTo(viaJSON);
      assertStructuralEqual(viaJSON.func, sch.func);
    }
  });

  it("replays sampled compute locations, including the inline and root marks", () => {
    for (const decision of [-2, -1, 0, 1]) {
      const sch = new Schedule(FUNC, { seed: 9 });
      const relu = sch.getBlock("relu");
      sch.computeAt(relu, sch.sampleComputeLocation(relu, decision));
      const fresh = new Schedule(FUNC);
      Trace.fromJSON(JSON.stringify(sch.trace)).applyTo(fresh);
      assertStructuralEqual(fresh.func, sch.func);
      expect(fresh.trace.toJSON().decisions).toEqual([[1, decision]]);
    }
    // Changing the decision on replay moves the block.
    const sch = new Schedule(FUNC, { seed: 9 });
    const relu = sch.getBlock("relu");
    sch.computeAt(relu, sch.sampleComputeLocation(relu, -1));
    const inlined = new Schedule(FUNC);
    sch.trace.applyTo(inlined, { decisions: new Map([[1, -2]]) });
    expect(inlined.script()).not.toContain('T.block("relu")');
  });

  it("overrides decisions by index or by function, and withDecision", () => {
    const sch = scheduleGemm(3, [2, 4, 2, 8]);
    const target = scheduleGemm(3, [4, 2, 2, 8]);
    const byMap = new Schedule(FUNC);
    sch.trace.applyTo(byMap, { decisions: new Map([[2, [4, 2, 2, 8]]]) });
    assertStructuralEqual(byMap.func, target.func);
    const byFn = new Schedule(FUNC);
    sch.trace.applyTo(byFn, { decisions: (inst) => (inst.kind.name === "SamplePerfectTile" ? [4, 2, 2, 8] : undefined) });
    assertStructuralEqual(byFn.func, target.func);
    const changed = sch.trace.withDecision(2, [4, 2, 2, 8]);
    expect(changed.toJSON().decisions[0]).toEqual([2, [4, 2, 2, 8]]);
    expect(sch.trace.toJSON().decisions[0]).toEqual([2, [2, 4, 2, 8]]);
    const viaWith = new Schedule(FUNC);
    changed.applyTo(viaWith);
    assertStructuralEqual(viaWith.func, target.func);
    expect(() => sch.trace.withDecision(99, 1)).toThrow(TraceFormatError);
  });

  it("samples afresh when a decision is removed, deterministically for the new seed", () => {
    const sch = scheduleGemm(3, [2, 4, 2, 8]);
    const fresh = sch.trace.withDecision(2, undefined);
    const a = new Schedule(FUNC, { seed: 77 });
    const b = new Schedule(FUNC, { seed: 77 });
    fresh.applyTo(a, { decisions: new Map([[7, null]]) });
    fresh.applyTo(b, { decisions: (_inst, index) => (index === 7 ? null : undefined) });
    expect(structuralEqual(a.func, b.func)).toBe(true);
    const [tile] = a.trace.toJSON().decisions;
    expect(tile![0]).toBe(2);
    expect((tile![1] as number[]).reduce((x, y) => x * y, 1)).toBe(128);
  });

  it("names the failing step and keeps the ScheduleError rendering", () => {
    const trace = scheduleGemm(3).trace;
    const other = new Schedule(gemmReluAdd(96).func);
    // On a 96-extent loop the first split is repaired, but fusing / computing at differ; force a failure:
    const broken = Trace.fromJSON({
      format: "tessera-trace",
      version: 1,
      instructions: [
        { kind: "GetBlock", inputs: [], attrs: ["gemm", "main"], outputs: ["b0"] },
        { kind: "GetLoops", inputs: ["b0"], attrs: [], outputs: ["l1", "l2", "l3"] },
        { kind: "Split", inputs: ["l1", 5, 5], attrs: [true, false], outputs: ["l4", "l5"] },
      ],
      decisions: [],
    });
    let err: unknown;
    try {
      broken.applyTo(other);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TraceReplayError);
    expect((err as TraceReplayError).step).toBe(2);
    expect((err as Error).message).toMatch(/^trace replay failed at step 2 \(Split\):\nScheduleError: An error occurred in the schedule primitive 'split'/);
    expect((err as Error).message).toContain("The IR with diagnostic is:");
    expect(trace.instructions.length).toBeGreaterThan(3);
  });

  it("reports a program whose loops differ from the trace's", () => {
    const trace = Trace.fromJSON([
      [
        ["GetBlock", [], ["relu", "main"], ["b0"]],
        ["GetLoops", ["b0"], [], ["l1", "l2", "l3"]],
      ],
      [],
    ]);
    expect(() => trace.applyTo(new Schedule(FUNC))).toThrow(/step 1 \(GetLoops\).*it produced 2 handle\(s\) where the trace recorded 3/s);
  });
});

describe("trace.simplified", () => {
  it("drops dead lookups and samplings, keeps everything used", () => {
    const sch = new Schedule(FUNC, { seed: 1 });
    const b0 = sch.getBlock("gemm");
    sch.getBlock("relu");
    const [l1, l2] = sch.getLoops(b0);
    sch.samplePerfectTile(l2!, 2, 16);
    sch.sampleCategorical([1, 2], [1, 1]);
    const vs = sch.samplePerfectTile(l1!, 2, 16, [8, 16]);
    sch.split(l1!, vs);
    const c = sch.cacheRead(sch.getBlock("relu"), 0, "local", [sch.getBlock("relu")]);
    sch.getLoops(c);
    const simple = sch.trace.simplified();
    expect(simple.instructions.map((i) => i.kind.name)).toEqual(["GetBlock", "GetLoops", "SamplePerfectTile", "Split", "GetBlock", "GetBlock", "CacheRead"]);
    expect(simple.toJSON().decisions).toEqual([[2, [8, 16]]]);
    const replayed = new Schedule(FUNC);
    simple.applyTo(replayed);
    assertStructuralEqual(replayed.func, sch.func);
  });
});

describe("malformed traces", () => {
  const base = () => ({
    format: "tessera-trace",
    version: 1,
    instructions: [
      { kind: "GetBlock", inputs: [], attrs: ["gemm", "main"], outputs: ["b0"] },
      { kind: "GetLoops", inputs: ["b0"], attrs: [], outputs: ["l1", "l2", "l3"] },
    ],
    decisions: [] as unknown[],
  });
  const problem = (doc: unknown): string => {
    try {
      Trace.fromJSON(doc);
    } catch (e) {
      expect(e).toBeInstanceOf(TraceFormatError);
      return (e as Error).message;
    }
    throw new Error("expected a TraceFormatError");
  };

  it("names the instruction and field of schema problems", () => {
    const a = base();
    (a.instructions[1] as { inputs: unknown }).inputs = "b0";
    expect(problem(a)).toBe("malformed trace: instructions[1].inputs: Invalid input: expected array, received string");
    const b = base();
    (b.instructions[0] as Record<string, unknown>).extra = 1;
    expect(problem(b)).toMatch(/^malformed trace: instructions\[0\]: Unrecognized key: "extra"/);
    const c = base();
    c.decisions = [[0, "x"]];
    expect(problem(c)).toBe("malformed trace: decisions[0][1]: expected an integer or a list of integers");
    expect(problem({ ...base(), version: 2 })).toBe("malformed trace: version: unsupported trace format version 2 (this build reads version 1)");
    expect(problem({ ...base(), format: "other" })).toMatch(/^malformed trace: format: /);
    expect(problem("{not json")).toMatch(/^malformed trace: not valid JSON/);
    expect(problem(42)).toMatch(/expected a trace object/);
    expect(problem([[["GetBlock", [], ["gemm"], "b0"]], []])).toMatch(/^malformed trace: instructions\[0\]\.outputs: /);
  });

  it("names unknown kinds, undefined handles, attribute counts and bad decisions", () => {
    const a = base();
    a.instructions[1]!.kind = "GetLoop";
    expect(problem(a)).toMatch(/^malformed trace: instructions\[1\]\.kind: unknown instruction kind "GetLoop" \(known kinds: GetBlock, /);
    const b = base();
    b.instructions[1]!.inputs = ["b7"];
    expect(problem(b)).toBe(
      'malformed trace: instructions[1].inputs[0]: "b7" is not a handle defined by an earlier instruction (string literals are written in quotes: "\\"b7\\"")',
    );
    const c = base();
    c.instructions[0]!.attrs = ["gemm"];
    expect(problem(c)).toBe("malformed trace: instructions[0].attrs: GetBlock takes 2 (name, func_name), got 1");
    const d = base();
    d.decisions = [[5, 1]];
    expect(problem(d)).toBe("malformed trace: decisions[0][0]: instruction index 5 is out of range (the trace has 2 instructions)");
    const e = base();
    e.instructions[1]!.outputs = ["l1", "x2"];
    expect(problem(e)).toBe('malformed trace: instructions[1].outputs[1]: output names start with b (block), l (loop) or v (value), got "x2"');
    const f = base();
    f.instructions[1]!.outputs = ["b0"];
    expect(problem(f)).toBe('malformed trace: instructions[1].outputs[0]: the name "b0" is already defined by an earlier output');
  });

  // Regression: a document nested thousands of levels deep overflowed the recursive readers (the
  // quick check, zod) with a bare RangeError.
  it("names where a document nests deeper than any trace, at any depth, in both formats", () => {
    const nested = (depth: number): unknown => {
      let v: unknown = [];
      for (let i = 0; i < depth; i++) v = [v];
      return v;
    };
    for (const depth of [70, 1_000, 100_000]) {
      const a = base();
      a.instructions[0]!.attrs = [nested(depth) as string, "main"];
      expect(problem(a)).toMatch(/^malformed trace: instructions\[0\]\.attrs(\[0\])+: nested more than 64 levels deep/);
      const b = base();
      b.instructions[1]!.inputs = [nested(depth) as string];
      expect(problem(b)).toMatch(/^malformed trace: instructions\[1\]\.inputs(\[0\])+: nested more than 64 levels deep/);
      // As JSON text, and in TVM's [instructions, decisions] form.
      const text = `{"format":"tessera-trace","version":1,"instructions":[{"kind":"GetBlock","inputs":[],"attrs":[${"[".repeat(depth)}${"]".repeat(depth)},"main"],"outputs":["b0"]}],"decisions":[]}`;
      expect(problem(text)).toMatch(/nested more than 64 levels deep/);
      expect(problem([[["GetBlock", [nested(depth)], ['"gemm"', '"main"'], ["b0"]]], []])).toMatch(
        /^malformed trace: \[0\]\[0\]\[1\](\[0\])+: nested more than 64/,
      );
    }
    // A document within the limit is read as before: the real traces' attributes nest a few levels.
    const ok = base();
    ok.instructions[0]!.attrs = ["gemm", "main"];
    expect(() => Trace.fromJSON(ok)).not.toThrow();
  });
});

describe("sampled location marks (regression: ROOT / INLINE were shared objects)", () => {
  /** relu and gemm each get their own sampled location, then are computed there. */
  function twoLocations(reluDecision: number, gemmDecision: number): Schedule {
    const sch = new Schedule(FUNC, { seed: 4 });
    const relu = sch.getBlock("relu");
    const gemm = sch.getBlock("gemm");
    const reluAt = sch.sampleComputeLocation(relu, reluDecision);
    const gemmAt = sch.sampleComputeLocation(gemm, gemmDecision);
    sch.computeAt(relu, reluAt);
    sch.computeAt(gemm, gemmAt);
    return sch;
  }

  it("names each sampled mark separately and uses each where it was passed", () => {
    const sch = twoLocations(-2, -1);
    const json = sch.trace.toJSON();
    const [reluAt, gemmAt] = [json.instructions[2]!.outputs[0], json.instructions[3]!.outputs[0]];
    expect(reluAt).not.toBe(gemmAt);
    expect(json.instructions[4]!.inputs).toEqual(["b0", reluAt]);
    expect(json.instructions[5]!.inputs).toEqual(["b1", gemmAt]);
    expect(sch.trace.show()).toContain(`sch.computeAt(b0, ${reluAt});`);
    expect(sch.script()).not.toContain('T.block("relu")');
    const fresh = new Schedule(FUNC);
    Trace.fromJSON(JSON.stringify(sch.trace)).applyTo(fresh);
    assertStructuralEqual(fresh.func, sch.func);
    expect(fresh.trace.toJSON().decisions).toEqual([
      [2, -2],
      [3, -1],
    ]);
  });

  it("replays a changed decision of the first of two root marks on that mark only", () => {
    const sch = twoLocations(-1, -1);
    // Move relu under add's outer loop (location 0); gemm stays at the root.
    for (const trace of [sch.trace, Trace.fromJSON(JSON.stringify(sch.trace))]) {
      const moved = new Schedule(FUNC);
      trace.applyTo(moved, { decisions: new Map([[2, 0]]) });
      const [addOuter] = moved.getLoops(moved.getBlock("add"));
      const [reluOuter] = moved.getLoops(moved.getBlock("relu"));
      expect(moved.get(reluOuter)).toBe(moved.get(addOuter));
      const direct = new Schedule(FUNC);
      direct.computeAt(direct.getBlock("relu"), direct.getLoops(direct.getBlock("add"))[0]);
      assertStructuralEqual(moved.func, direct.func);
    }
  });
});
