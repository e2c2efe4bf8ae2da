import { describe, expect, it } from "vitest";
import { cpuTable, parseCpuLog, parseProcStat } from "../test-order/cpu-times.js";
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

describe("CPU seconds per test file", () => {
  it("reads utime, stime, cutime and cstime from /proc/PID/stat, a command name with spaces and parentheses included", () => {
    const stat = "4242 (node (vitest 1)) S 1 2 3 0 -1 4194560 100 200 0 0 1500 320 77 12 20 0 11 0 900 1000 500";
    expect(parseProcStat(stat)).toEqual({ utime: 1500, stime: 320, cutime: 77, cstime: 12 });
    expect(() => parseProcStat("no name here")).toThrow(/no command name/);
    expect(() => parseProcStat("1 (x) S 1 2")).toThrow(/field 14 is not a tick count/);
  });

  it("sums a file's lines (a file may run in more than one project), ranks by CPU and names a bad line", () => {
    const log = [
      JSON.stringify({ file: "a.test.ts", self: 1, children: 0.5, wall: 2 }),
      JSON.stringify({ file: "b.test.ts", self: 3, children: 4, wall: 5 }),
      "",
      JSON.stringify({ file: "a.test.ts", self: 2, children: 0, wall: 1 }),
    ].join("\n");
    const records = parseCpuLog(log);
    expect(records).toEqual([
      { file: "a.test.ts", self: 3, children: 0.5, wall: 3 },
      { file: "b.test.ts", self: 3, children: 4, wall: 5 },
    ]);
    const table = cpuTable(records, 1).split("\n");
    expect(table.slice(2)).toEqual(["| `b.test.ts` | 7.0 | 3.0 | 4.0 | 5.0 |", "| all 2 files | 10.5 | 6.0 | 4.5 | 8.0 |"]);
    expect(() => parseCpuLog('{"file":"c.test.ts"}')).toThrow(/line 1: expected \{file, self, children, wall\}/);
  });
});
