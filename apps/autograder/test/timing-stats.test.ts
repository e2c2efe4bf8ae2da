/** Timing statistics as the reports print them, and when a measurement counts as noisy. */
import { describe, expect, it } from "vitest";
import { timingNoise } from "../src/grade/timing-noise.js";
import { formatStd, formatTimingStats, formatTimingWithNoise } from "../src/report/timing-stats.js";

describe("timing statistics", () => {
  it("shows a spread of microseconds on milliseconds (the H200 run: 0.26 µs on 4.934 ms) instead of rounding it to 0.000", () => {
    const t = { meanMs: 4.934, medianMs: 4.9335, minMs: 4.9331, stdMs: 0.00026 };
    expect(formatTimingStats(t)).toBe("4.934 ms mean, 4.934 median, 4.933 min; std 0.26 µs (0.0053% of the mean)");
    expect(timingNoise(t)).toBeUndefined();
    expect(formatTimingWithNoise(t)).not.toContain("NOISY");
    // The markdown report's std column.
    expect(formatStd(t)).toBe("0.26 µs (0.0053%)");
  });

  it("switches to ms from 1 ms of spread, and rounds µs from 100 µs to whole ones", () => {
    expect(formatTimingStats({ meanMs: 300, medianMs: 299, minMs: 298, stdMs: 1.5 })).toBe(
      "300.000 ms mean, 299.000 median, 298.000 min; std 1.500 ms (0.50% of the mean)",
    );
    expect(formatTimingStats({ meanMs: 30, medianMs: 30, minMs: 30, stdMs: 0.1234 })).toBe(
      "30.000 ms mean, 30.000 median, 30.000 min; std 123 µs (0.41% of the mean)",
    );
  });

  it("flags a std above 2% of the mean, and a min more than 5% below the median, each with its share", () => {
    expect(timingNoise({ meanMs: 10, medianMs: 10, minMs: 9.9, stdMs: 0.2 })).toBeUndefined();
    expect(timingNoise({ meanMs: 10, medianMs: 10, minMs: 9.9, stdMs: 0.21 })).toBe("std 2.1% of the mean (over 2.0%)");
    expect(timingNoise({ meanMs: 10, medianMs: 10, minMs: 9.4, stdMs: 0.01 })).toBe("min 6.0% below the median (over 5.0%)");
    expect(formatTimingWithNoise({ meanMs: 10, medianMs: 10, minMs: 9, stdMs: 0.5 })).toBe(
      "10.000 ms mean, 10.000 median, 9.000 min; std 500 µs (5.0% of the mean) — NOISY: std 5.0% of the mean (over 2.0%), min 10% below the median (over 5.0%)",
    );
  });

  it("treats a zero or missing mean as noisy rather than printing NaN as fine", () => {
    expect(timingNoise({ meanMs: 0, medianMs: 0, minMs: 0, stdMs: 0 })).toBe("std ?% of the mean (over 2.0%), min ?% below the median (over 5.0%)");
  });
});
