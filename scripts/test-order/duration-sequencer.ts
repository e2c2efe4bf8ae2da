/**
 * Orders test files longest first, from durations recorded on an idle machine (test-durations.json
 * beside this file). Vitest orders by its own cache of the last run's durations, which a fresh clone
 * (CI) does not have; it then falls back to file size, so a long integration test can start last
 * and leave one of the two workers idle while it runs. Longest-first is the classic rule that keeps
 * that tail short. Files with no recorded duration (new tests) go first, as vitest's own rule does.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { parseDurations } from "./durations.js";

const DURATIONS_FILE = new URL("./test-durations.json", import.meta.url);

function loadDurations(): ReadonlyMap<string, number> {
  try {
    return parseDurations(JSON.parse(readFileSync(DURATIONS_FILE, "utf8")));
  } catch {
    // No or unreadable durations: every file counts as unknown, and the order is vitest's.
    return new Map();
  }
}

export class DurationSequencer extends BaseSequencer {
  private readonly durations = loadDurations();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const baseOrder = await super.sort(files);
    const position = new Map(baseOrder.map((spec, i) => [spec, i]));
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification): number => this.durations.get(relative(root, spec.moduleId)) ?? Number.POSITIVE_INFINITY;
    return [...baseOrder].sort((a, b) => {
      // Projects still run one after another, as vitest's own order has them.
      if (a.project.name !== b.project.name) return (position.get(a) ?? 0) - (position.get(b) ?? 0);
      const diff = seconds(b) - seconds(a);
      return Number.isNaN(diff) || diff === 0 ? (position.get(a) ?? 0) - (position.get(b) ?? 0) : diff;
    });
  }
}
