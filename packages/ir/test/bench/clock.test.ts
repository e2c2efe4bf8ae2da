/** The clocks of the paired `--compare` benchmarks: CPU time counts work, not waiting. */
import { describe, expect, test } from "vitest";
import { cpuTimeMs, timeMs } from "../../bench/bench-util.js";
import { pairedTimes } from "../../bench/paired.js";

/** Computes until the process has spent `ms` of CPU time (however busy the machine is). */
function busy(ms: number): void {
  const start = process.cpuUsage();
  let x = 0;
  for (;;) {
    for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + i);
    const d = process.cpuUsage(start);
    if ((d.user + d.system) / 1000 >= ms) break;
  }
  if (x < 0) throw new Error("unreachable");
}

function idle(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe("bench clocks", () => {
  test("cpuTimeMs counts computing but not waiting; timeMs counts waiting", () => {
    expect(timeMs(() => idle(40))).toBeGreaterThanOrEqual(35);
    // The process's CPU time: the fewest of three waits, so that a GC thread's burst in one does not decide.
    expect(Math.min(...[0, 1, 2].map(() => cpuTimeMs(() => idle(40))))).toBeLessThan(20);
    expect(cpuTimeMs(() => busy(40))).toBeGreaterThanOrEqual(40);
  });

  test("pairedTimes with the cpu clock sees a side that waits as the cheaper one", () => {
    const waits = () => () => idle(20);
    const works = () => () => busy(20);
    const cpu = pairedTimes("wait vs work", waits, works, { warmup: 0, runs: 3, clock: "cpu" });
    expect(cpu.ratio).toBeLessThan(0.5);
    expect(cpu.bMedianMs).toBeGreaterThanOrEqual(20);
  });
});
