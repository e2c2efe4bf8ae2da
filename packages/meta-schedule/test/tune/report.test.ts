import { Writable } from "node:stream";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FAILED_RUN_SECS } from "../../src/index.js";
import { bestSoFarPoints, tuningCurveSVG, writeTuningCurve } from "../../src/report/tuning-curve.js";
import { createProgressReporter, formatDuration } from "../../src/report/progress.js";
import { formatGeneral, formatTuningSummary } from "../../src/report/summary-table.js";
import { printTable } from "../../src/report/table-printer.js";

describe("the summary table", () => {
  it("prints TVM's columns, right-aligned, with N/A for a task without a valid run", () => {
    const text = formatTuningSummary([
      { name: "gemm", flop: 2 * 256 ** 3, weight: 1, trials: 64, bestLatency: 20.5e-6, done: true },
      { name: "softmax", flop: 5 * 4096, weight: 3, trials: 12, bestLatency: 4e-6, done: false },
      { name: "broken", flop: 1, weight: 1, trials: 8, bestLatency: FAILED_RUN_SECS, done: true },
    ]);
    const expected = [
      " ID |    Name |     FLOP | Weight | Speed (GFLOPS) | Latency (us) | Weighted Latency (us) | Trials | Done ",
      "-".repeat(106),
      "  0 |    gemm | 33554432 |      1 |      1636.8016 |      20.5000 |               20.5000 |     64 |    Y ",
      "  1 | softmax |    20480 |      3 |         5.1200 |       4.0000 |               12.0000 |     12 |      ",
      "  2 |  broken |        1 |      1 |            N/A |          N/A |                   N/A |      8 |    Y ",
      "-".repeat(106),
      "Total trials: 84",
      "Total latency (us): 32.5",
      "",
    ].join("\n");
    expect(text).toBe(expected);
  });

  it("labels every figure as an estimate when the runner estimates (the simulated runner)", () => {
    const text = formatTuningSummary([{ name: "gemm", flop: 2 * 256 ** 3, weight: 1, trials: 64, bestLatency: 20.5e-6, done: true }], { estimated: true });
    expect(text.split("\n")[0]).toBe(" ID | Name |     FLOP | Weight | Est. Speed (GFLOPS) | Est. Latency (us) | Est. Weighted Latency (us) | Trials | Done ");
    expect(text).toContain("Total latency (us, estimated): 20.5\n");
  });

  it("labels the best figure of the progress lines as an estimate", () => {
    let out = "";
    const stream = new Writable({ write: (chunk, _e, done) => ((out += String(chunk)), done()) });
    const progress = createProgressReporter({ stream, tty: false, estimated: true, everyTrials: 1, now: () => 0 });
    progress.start(2);
    progress.update({ trialsDone: 2, bestGflops: 10, bestLatencyUs: 3 });
    progress.stop();
    expect(out).toContain("best (estimated) 10.0000 GFLOPS (3.0000 us)");
  });

  it("prints the total latency as C++ streams print a double (6 significant digits)", () => {
    expect(formatGeneral(32.5)).toBe("32.5");
    expect(formatGeneral(1234.56789)).toBe("1234.57");
    expect(formatGeneral(0)).toBe("0");
    expect(formatGeneral(1234567.8)).toBe("1.23457e+06");
    expect(formatGeneral(0.000012345)).toBe("1.2345e-05");
  });

  it("sizes each column by its widest cell", () => {
    expect(printTable([["a", "bbb"], "separator", ["cc", "d"]])).toBe("  a | bbb \n----------\n cc |   d ");
  });
});

/** A stream that keeps what is written to it. */
function sink(): Writable & { text: string } {
  const stream = new Writable({
    write(chunk, _enc, done) {
      stream.text += String(chunk);
      done();
    },
  }) as Writable & { text: string };
  stream.text = "";
  return stream;
}

describe("progress", () => {
  it("prints plain lines off a terminal: log lines, and progress every N trials and at the end", () => {
    const out = sink();
    let now = 0;
    const progress = createProgressReporter({ stream: out, now: () => now, everyTrials: 4 });
    progress.start(10);
    for (let t = 1; t <= 10; t++) {
      now = t * 1500;
      progress.update({ trialsDone: t, bestGflops: 100 + t, bestLatencyUs: 50 - t });
      if (t === 2) progress.log("[Task #0: main] Trial #2: something");
    }
    progress.stop();
    expect(out.text).toBe(
      [
        "[Task #0: main] Trial #2: something",
        "progress: 4/10 trials (40.0%), best 104.0000 GFLOPS (46.0000 us), elapsed 6.0s, ETA 9.0s",
        "progress: 8/10 trials (80.0%), best 108.0000 GFLOPS (42.0000 us), elapsed 12.0s, ETA 3.0s",
        "progress: 10/10 trials (100.0%), best 110.0000 GFLOPS (40.0000 us), elapsed 15.0s, ETA 0.0s",
        "",
      ].join("\n"),
    );
  });

  it("prints the last state on stop when the run ended between two lines", () => {
    const out = sink();
    let now = 0;
    const progress = createProgressReporter({ stream: out, tty: false, now: () => now, everyTrials: 8 });
    progress.start(16);
    for (let t = 1; t <= 11; t++) {
      now = t * 500;
      progress.update({ trialsDone: t, bestGflops: 1, bestLatencyUs: 2 });
    }
    progress.stop();
    expect(out.text).toBe(
      "progress: 8/16 trials (50.0%), best 1.0000 GFLOPS (2.0000 us), elapsed 4.0s, ETA 4.0s\n" +
        "progress: 11/16 trials (68.8%), best 1.0000 GFLOPS (2.0000 us), elapsed 5.5s, ETA 2.5s\n",
    );
  });

  it("says N/A while no trial succeeded", () => {
    const out = sink();
    const progress = createProgressReporter({ stream: out, tty: false, now: () => 0, everyTrials: 1 });
    progress.start(2);
    progress.update({ trialsDone: 1 });
    expect(out.text).toContain("progress: 1/2 trials (50.0%), best N/A");
  });

  it("formats durations", () => {
    expect(formatDuration(12.34)).toBe("12.3s");
    expect(formatDuration(125)).toBe("2m05s");
    expect(formatDuration(3723)).toBe("1h02m03s");
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe("?");
  });
});

/** Every element closed in order (tags matched on a stack), one root element. */
function wellFormed(xml: string): boolean {
  const stack: string[] = [];
  let roots = 0;
  for (const m of xml.matchAll(/<(\/?)([a-zA-Z][\w:-]*)(?:"[^"]*"|'[^']*'|[^'">])*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = m;
    if (closing === "/") {
      if (stack.pop() !== name) return false;
    } else if (selfClosing !== "/") {
      if (stack.length === 0) roots++;
      stack.push(name!);
    } else if (stack.length === 0) roots++;
  }
  return stack.length === 0 && roots === 1;
}

describe("the tuning curve", () => {
  it("keeps the best latency so far, starting at the first success", () => {
    expect(bestSoFarPoints([FAILED_RUN_SECS, 3e-6, 4e-6, 2e-6])).toEqual([
      { trials: 2, bestLatencyUs: 3 },
      { trials: 3, bestLatencyUs: 3 },
      { trials: 4, bestLatencyUs: 2 },
    ]);
  });

  it("writes a valid SVG with one line per series, and a PNG", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-curve-"));
    const series = [
      { name: "seed 1", points: bestSoFarPoints([5e-6, 4e-6, 4.5e-6, 3e-6]) },
      { name: "seed 2", points: bestSoFarPoints([6e-6, 2.5e-6, 2.6e-6, 2.4e-6]) },
    ];
    const written = await writeTuningCurve(join(dir, "curve.svg"), series, { title: "vector add", png: true });
    const svg = readFileSync(written.svg, "utf8");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(wellFormed(svg)).toBe(true);
    expect(svg).toContain("vector add");
    expect(svg).toContain("seed 1");
    expect(svg).toContain("seed 2");
    expect(svg).toContain("Best latency (us)");
    // One line per series.
    expect(svg.split('aria-roledescription="line mark"').length - 1).toBe(2);
    expect(written.png).toBe(join(dir, "curve.png"));
    const png = readFileSync(written.png!);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(existsSync(join(dir, "curve.png"))).toBe(true);
  });

  it("rejects a point that is not a latency", async () => {
    await expect(tuningCurveSVG([{ name: "bad", points: [{ trials: 1, bestLatencyUs: Number.NaN }] }])).rejects.toThrow('series "bad" has an invalid point');
  });
});
