import { target } from "@tessera/codegen";
import { gemmReluAdd, structuralEqual, vectorAdd } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import {
  type Mutator,
  type Postproc,
  POSTPROC_OK,
  ScheduleFnSpace,
  SpaceGenerationError,
  SpaceGeneratorUnion,
  TraceSpace,
  tuneContext,
  workloadOf,
} from "../../src/index.js";
import { gemmTileSpace, gemmWorkload, mutateTile, threadLimit, tileDecisions } from "./gemm-fixture.js";

const context = (seed: number) => tuneContext(gemmWorkload(), target("nvidia/h100"), { seed });

/** A design space as the autograder's sandbox hands it over: the sampled schedule's trace as JSON text. */
function sandboxTrace(seed: number): string {
  const sch = new Schedule(gemmReluAdd(64).func, { seed });
  gemmTileSpace(sch);
  return JSON.stringify(sch.trace.toJSON());
}

describe("ScheduleFnSpace", () => {
  it("applies the function to a schedule of the workload seeded from the context", () => {
    const space = new ScheduleFnSpace(gemmTileSpace);
    const [a] = space.generateDesignSpace(context(1));
    const [b] = space.generateDesignSpace(context(1));
    expect(space.name).toBe("gemmTileSpace");
    expect(tileDecisions(a!.trace)).toHaveLength(3);
    expect(tileDecisions(a!.trace)).toEqual(tileDecisions(b!.trace));
    const others = [2, 3, 4, 5].map((seed) => JSON.stringify(tileDecisions(space.generateDesignSpace(context(seed))[0]!.trace)));
    expect(new Set([JSON.stringify(tileDecisions(a!.trace)), ...others]).size).toBeGreaterThan(1);
  });

  it("takes the schedules the function returns: one, several, or the one it was given", () => {
    const ctx = context(1);
    expect(new ScheduleFnSpace((sch) => sch).generateDesignSpace(ctx)).toHaveLength(1);
    const two = new ScheduleFnSpace((sch) => {
      const other = sch.copy();
      gemmTileSpace(other);
      return [sch, other];
    }).generateDesignSpace(ctx);
    expect(two).toHaveLength(2);
    expect(two[0]!.trace.instructions).toHaveLength(0);
    expect(tileDecisions(two[1]!.trace)).toHaveLength(3);
  });

  it("reports a function that throws with its name, the workload and the cause", () => {
    const space = new ScheduleFnSpace(function brokenSpace(sch: Schedule) {
      sch.getBlock("no_such_block");
    });
    const run = () => space.generateDesignSpace(context(1));
    expect(run).toThrow(SpaceGenerationError);
    expect(run).toThrow(/the space function brokenSpace failed on workload main: .*no_such_block/s);
    const typeError = new ScheduleFnSpace(function buggy() {
      throw new TypeError("x is undefined");
    });
    expect(() => typeError.generateDesignSpace(context(1))).toThrow(/the space function buggy failed on workload main: x is undefined/);
  });

  it("reports what a function returned when it is not a schedule", () => {
    const bad = new ScheduleFnSpace(function returnsNumber() {
      return 42 as unknown as void;
    });
    expect(() => bad.generateDesignSpace(context(1))).toThrow(/returnsNumber returned number 42; expected nothing, a Schedule or a list of Schedules/);
    expect(() => new ScheduleFnSpace(() => [] as Schedule[]).generateDesignSpace(context(1))).toThrow(/returned an empty list/);
    expect(() => new ScheduleFnSpace("gemm" as never)).toThrow(/expects a function/);
  });

  it("reports a returned schedule that is not of the workload", () => {
    const ownSchedule = new ScheduleFnSpace(function ownSchedule() {
      const sch = new Schedule(vectorAdd(64).func);
      const [i] = sch.getLoops(sch.getBlock("C"));
      sch.split(i, [null, 32]);
      return sch;
    });
    expect(() => ownSchedule.generateDesignSpace(context(1))).toThrow(
      /the space does not apply to this workload \(main\): the trace of ownSchedule does not replay on it/,
    );
  });

  it("carries its postprocessors and mutators and initialises them once per task", () => {
    const initialised: string[] = [];
    const p: Postproc = { name: "p", initialize: () => initialised.push("p"), apply: () => POSTPROC_OK };
    const m: Mutator = { name: "m", initialize: () => initialised.push("m"), apply: () => undefined };
    const space = new ScheduleFnSpace(gemmTileSpace, { postprocs: [p], mutators: [{ mutator: m, probability: 0.5 }] });
    space.initialize(context(1));
    expect(initialised).toEqual(["p", "m"]);
    expect(() => new ScheduleFnSpace(gemmTileSpace, { mutators: [{ mutator: m, probability: -1 }] })).toThrow(/mutator m has probability -1/);
  });
});

describe("TraceSpace", () => {
  it("replays recorded traces (ours or TVM's JSON) on the workload", () => {
    const json = sandboxTrace(3);
    const original = new Schedule(gemmReluAdd(64).func, { seed: 3 });
    gemmTileSpace(original);
    const space = new TraceSpace([json, JSON.parse(json), original.trace.toTVMJSON()]);
    const spaces = space.generateDesignSpace(context(1));
    expect(spaces).toHaveLength(3);
    for (const s of spaces) expect(structuralEqual(s.func, original.func)).toBe(true);
  });

  it("reports a trace that does not apply to the workload", () => {
    const space = new TraceSpace([sandboxTrace(1)]);
    const ctx = tuneContext(workloadOf(vectorAdd(64).func), target("nvidia/h100"), { seed: 1 });
    expect(() => space.generateDesignSpace(ctx)).toThrow(SpaceGenerationError);
    expect(() => space.generateDesignSpace(ctx)).toThrow(/the space does not apply to this workload \(main\): .*gemm/s);
  });

  it("reports a malformed trace when it is given", () => {
    expect(() => new TraceSpace(["{not json"])).toThrow(/trace 0 is not a valid trace: .*not valid JSON/);
    expect(
      () =>
        new TraceSpace([
          sandboxTrace(1),
          { format: "tessera-trace", version: 1, instructions: [{ kind: "Nope", inputs: [], attrs: [], outputs: [] }], decisions: [] },
        ]),
    ).toThrow(/trace 1 is not a valid trace: .*unknown instruction kind "Nope"/);
    expect(() => new TraceSpace([])).toThrow(/non-empty list of traces/);
  });
});

describe("SpaceGeneratorUnion", () => {
  it("concatenates the design spaces and gathers postprocessors and mutators by name", () => {
    const a = new ScheduleFnSpace(gemmTileSpace, { postprocs: [threadLimit], mutators: [{ mutator: mutateTile, probability: 0.9 }] });
    const b = new TraceSpace([sandboxTrace(2), sandboxTrace(3)], { postprocs: [threadLimit], mutators: [{ mutator: mutateTile, probability: 0.1 }] });
    const union = new SpaceGeneratorUnion([a, b]);
    expect(union.generateDesignSpace(context(1))).toHaveLength(3);
    expect(union.postprocs.map((p) => p.name)).toEqual(["threadLimit"]);
    expect(union.mutators).toEqual([{ mutator: mutateTile, probability: 0.9 }]);
    const explicit = new SpaceGeneratorUnion([a, b], { postprocs: [] });
    expect(explicit.postprocs).toEqual([]);
    expect(() => new SpaceGeneratorUnion([])).toThrow(/at least one space generator/);
  });
});
