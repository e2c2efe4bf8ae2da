/** summary.csv and pass-rates.md over outcomes built by hand: numerics verdicts counted, no formula injection. */
import { describe, expect, it } from "vitest";
import { csvField, toCsv } from "../src/batch/csv.js";
import { type OutcomeSummary, errorOutcome } from "../src/batch/grade-one.js";
import { numericsPassRates, passRatesMarkdown, taskPassRates } from "../src/batch/pass-rates.js";
import { summaryCsv } from "../src/batch/summary.js";
import type { NumericsVerdictKind } from "../src/grade/numerics-verdicts.js";
import { manifest } from "./support/grade-report.js";

const graded = (name: string, score: number, manual: NumericsVerdictKind, tuned: NumericsVerdictKind): OutcomeSummary => ({
  name,
  seconds: 2.25,
  status: "graded",
  score,
  maxScore: 80,
  tasks: manifest.tasks.map((t) => ({ id: t.id, points: t.points > 0 && score > 0 ? t.points : 0, maxPoints: t.id === "auto-tuning" ? 0 : t.points })),
  numerics: { "manual-schedule-correct": manual, "tuned-schedule-correct": tuned },
});
const outcomes: OutcomeSummary[] = [
  graded("solution", 80, "pass", "pass"),
  graded("wrong", 0, "fail", "not-checked"),
  graded("=1+1", 80, "pass", "fail"),
  { name: "@cmd", seconds: 0.1, status: "error", error: "-broken zip" },
];

describe("CSV cells a spreadsheet would run as a formula", () => {
  it("are prefixed with a single quote; numbers stay numbers", () => {
    expect(["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tx", "\rx"].map(csvField)).toEqual(["'=1+1", "'+SUM(A1)", "'-2+3", "'@cmd", "'\tx", '"\'\rx"']);
    expect([-3, 0.5, "alice", "a=b", undefined].map(csvField)).toEqual(["-3", "0.5", "alice", "a=b", ""]);
    expect(toCsv([['=HYPERLINK("http://x")', 1]])).toBe(`"'=HYPERLINK(""http://x"")",1\r\n`);
  });

  it("in summary.csv: submission names and error messages", () => {
    const csv = summaryCsv(outcomes, manifest);
    expect(csv).toContain("\r\n'=1+1,graded,80,80,");
    expect(csv).toContain("\r\n'@cmd,error,0,");
    expect(csv).toContain(",'-broken zip\r\n");
    expect(csv).not.toMatch(/(^|[\n,])[=+@-]/);
  });
});

describe("a submission's error", () => {
  it("is escaped: a zip entry's name cannot drive the instructor's terminal", () => {
    const outcome = errorOutcome("eve", 'eve.zip: entry "\u001b[2Jx.ts" points outside the archive', 0.1);
    expect(outcome.status === "error" && outcome.error).toBe('eve.zip: entry "\\x1b[2Jx.ts" points outside the archive');
    expect(outcome.reportText + outcome.results.output).not.toContain("\u001b");
  });
});

describe("summary.csv's numerics columns", () => {
  it("say pass, fail or not-checked per numerics check, and leave out the 0-point gate's points column", () => {
    const rows = summaryCsv(outcomes, manifest)
      .trimEnd()
      .split("\r\n")
      .map((r) => r.split(","));
    const header = rows[0]!;
    expect(header).toEqual([
      "submission",
      "status",
      "score",
      "max_score",
      "shared-memory-tiling",
      "register-tiling",
      "cooperative-fetching",
      "write-cache",
      "epilogue-fusion",
      "auto-tuning",
      "manual-schedule-correct",
      "tuned-schedule-correct",
      "seconds",
      "error",
    ]);
    const cell = (row: number, column: string): string => rows[row]![header.indexOf(column)]!;
    expect([1, 2, 3, 4].map((r) => [cell(r, "manual-schedule-correct"), cell(r, "tuned-schedule-correct")])).toEqual([
      ["pass", "pass"],
      ["fail", "not-checked"],
      ["pass", "fail"],
      ["", ""],
    ]);
    expect(cell(1, "seconds")).toBe("2.3");
  });
});

describe("pass-rates.md", () => {
  it("counts numerics pass, fail and not checked (an ungraded submission: not checked)", () => {
    expect(numericsPassRates(outcomes, manifest)).toEqual([
      { checkId: "manual-schedule-correct", title: "Part 1 numerical correctness", pass: 2, fail: 1, notChecked: 1 },
      { checkId: "tuned-schedule-correct", title: "Part 2. Auto tuning", pass: 1, fail: 1, notChecked: 2 },
    ]);
  });

  it("shows them in a table of their own and never says the gate's checks were skipped", () => {
    const md = passRatesMarkdown(taskPassRates(outcomes, manifest), outcomes.length, numericsPassRates(outcomes, manifest));
    expect(md).toContain("| Part 1 numerical correctness | 0 | – | – | – | – (a 0-point check: see Numerics) |");
    expect(md).toContain("| Check | Pass | Fail | Not checked |");
    expect(md).toContain("| Part 1 numerical correctness (manual-schedule-correct) | 2 (50%) | 1 | 1 |");
    expect(md).toContain("| Part 2. Auto tuning (tuned-schedule-correct) | 1 (25%) | 1 | 2 |");
    expect(md).not.toMatch(/Part 1 numerical correctness.*all its checks were skipped/);
  });
});
