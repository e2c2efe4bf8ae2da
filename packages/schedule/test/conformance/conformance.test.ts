/**
 * TVM-conformance suite for the schedule primitives: each case parses `before`, applies the calls,
 * and compares with `expected` (names included) or checks the expected ScheduleError. A summary
 * table (cases passed per primitive) is printed after the run with TESSERA_TEST_VERBOSE=1.
 */
import { afterAll, describe, expect, it } from "vitest";
import { BY_NAME_CASES } from "./cases-by-name.js";
import { CASES } from "./cases.js";
import { FIDELITY_CASES } from "./cases-fidelity.js";
import { runCase } from "./runner.js";

const VERBOSE = process.env.TESSERA_TEST_VERBOSE === "1";
const results = new Map<string, { passed: number; total: number; failed: string[] }>();

describe("schedule conformance (TVM semantics)", () => {
  for (const c of [...CASES, ...BY_NAME_CASES, ...FIDELITY_CASES]) {
    it(`${c.primitive}: ${c.name}`, () => {
      const row = results.get(c.primitive) ?? { passed: 0, total: 0, failed: [] };
      results.set(c.primitive, row);
      row.total++;
      let outcome;
      try {
        outcome = runCase(c);
      } catch (e) {
        outcome = { ok: false, message: `runner crashed: ${(e as Error)?.stack ?? String(e)}` };
      }
      if (outcome.ok) row.passed++;
      else row.failed.push(c.name);
      expect(outcome.ok, `${c.name}\n${outcome.message}`).toBe(true);
    });
  }
});

afterAll(() => {
  if (!VERBOSE) return;
  const lines = ["", "Conformance summary (cases passed per primitive)", "primitive               passed / total"];
  let passed = 0;
  let total = 0;
  for (const [prim, row] of results) {
    passed += row.passed;
    total += row.total;
    lines.push(`${prim.padEnd(24)}${String(row.passed).padStart(6)} / ${row.total}${row.failed.length ? `   failing: ${row.failed.join(", ")}` : ""}`);
  }
  lines.push(`${"TOTAL".padEnd(24)}${String(passed).padStart(6)} / ${total}`, "");
  console.log(lines.join("\n"));
});
