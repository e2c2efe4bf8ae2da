import { compilePrimFunc, randomArgs, verifyWellFormed } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { REFERENCE_MANUAL_PARAMS, checkManualParams, manualSchedule, scheduleCorpus } from "../src/index.js";

describe("schedule corpus", () => {
  for (const entry of scheduleCorpus()) {
    it(`${entry.name}: the scheduled function computes what the unscheduled one does`, () => {
      const scheduled = entry.build().func;
      verifyWellFormed(scheduled);
      const args = randomArgs(scheduled, 7);
      const expected = args.map((a) => a.slice());
      const actual = args.map((a) => a.slice());
      compilePrimFunc(entry.original()).run(expected);
      compilePrimFunc(scheduled).run(actual);
      expect(actual).toEqual(expected);
    });
  }

  it("rejects tile sizes that do not divide the problem", () => {
    expect(() => checkManualParams(96, REFERENCE_MANUAL_PARAMS)).toThrow(/tileX: 64 does not divide 96/);
    expect(() => manualSchedule(128, { ...REFERENCE_MANUAL_PARAMS, threadTileX: 3 })).toThrow(/threadTileX/);
  });
});
