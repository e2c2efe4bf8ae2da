import { describe, expect, it } from "vitest";
import { durationsFromReport, parseDurations } from "../test-order/durations.js";

describe("recorded test durations", () => {
  it("reads file → seconds and refuses anything else, naming the file", () => {
    expect([...parseDurations({ "a.test.ts": 1.5 })]).toEqual([["a.test.ts", 1.5]]);
    expect(() => parseDurations([])).toThrow(/expected an object/);
    expect(() => parseDurations({ "b.test.ts": "slow" })).toThrow(/b\.test\.ts has no duration/);
    expect(() => parseDurations({ "c.test.ts": -1 })).toThrow(/c\.test\.ts/);
  });

  it("takes each file's duration from a vitest JSON report, relative to the root, over the previous ones", () => {
    const report = { testResults: [{ name: "/repo/packages/x/test/a.test.ts", startTime: 1000, endTime: 3260 }] };
    const merged = durationsFromReport(
      report,
      "/repo",
      new Map([
        ["old.test.ts", 4],
        ["packages/x/test/a.test.ts", 9],
      ]),
    );
    expect(Object.fromEntries(merged)).toEqual({ "old.test.ts": 4, "packages/x/test/a.test.ts": 2.3 });
    expect(() => durationsFromReport({ files: [] }, "/repo", new Map())).toThrow(/not a vitest JSON report/);
  });
});
