/** Schedules refuse a loop with a step (TVM's For.step): every primitive assumes unit steps. */
import { parsePrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { Schedule } from "../src/index.js";

describe("loops with a step", () => {
  it("are refused by the first primitive, naming the loop and the step", () => {
    const f = parsePrimFunc(
      [
        "@T.prim_func",
        'def f(A: T.Buffer((8,), "float32")):',
        "    for i in T.serial(0, 8, step=2):",
        '        with T.block("b"):',
        "            vi = T.axis.spatial(8, i)",
        "            A[vi] = T.float32(0)",
      ].join("\n"),
    );
    const sch = new Schedule(f);
    expect(() => sch.getLoops(sch.getBlock("b"))).toThrow("loop i has a step (2): schedule primitives work on unit-step loops");
  });
});
