/**
 * Every d2l CPU operator tuned through tuneTIR for the C target (the CPU space, gcc, the runner's
 * child), at a small size and a few trials: the best record, found by the database query `tessera
 * build --database` uses (under the other name of the C backend, `llvm`), compiles and computes what
 * the JS executor computes. No timing assertions.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { target } from "@tessera/codegen";
import * as d2l from "@tessera/corpus/d2l-cpu";
import { type TypedArray, compilePrimFunc, randomArgs } from "@tessera/ir";
import { build } from "@tessera/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { JSONDatabase, queryBestSchedule, tuneTIR } from "../../src/index.js";
import { NO_SEARCH_WORKERS, SMALL_SEARCH } from "./search-workers.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const conv = { channels: 4, size: 10, kernel: 3, padding: 1 };
const operators: [string, () => d2l.ScheduledOperator][] = [
  ["vector add", () => d2l.vectorAddCpu(256)],
  ["broadcast add", () => d2l.broadcastAddCpu(16, 24)],
  ["matmul", () => d2l.matmulCpu(16, 24, 8)],
  ["conv2d", () => d2l.conv2dCpu(conv)],
  ["depthwise conv2d", () => d2l.depthwiseConv2dCpu(conv)],
  ["max pool", () => d2l.maxPoolCpu({ ...conv, stride: 1 })],
  ["avg pool", () => d2l.avgPoolCpu({ ...conv, stride: 1 })],
  ["batch norm", () => d2l.batchNormCpu(4, 10)],
];

describe("tuneTIR on every d2l CPU operator, its record applied as build applies it", () => {
  it.each(operators)(
    "%s",
    async (_label, make) => {
      const func = make().original;
      const workDir = mkdtempSync(join(tmpdir(), "tessera-cpu-op-tuning-"));
      dirs.push(workDir);
      const result = await tuneTIR(func, target("c"), {
        workDir,
        maxTrialsGlobal: 3,
        numTrialsPerIter: 3,
        seed: 1,
        writeCurve: false,
        ...NO_SEARCH_WORKERS,
        ...SMALL_SEARCH,
      });
      const failures = result.history.filter((t) => !t.ok).map((t) => (t.ok ? "" : t.error));
      expect(
        result.history.some((t) => t.ok),
        `no trial ran: ${failures.join(" | ")}`,
      ).toBe(true);
      const best = queryBestSchedule(new JSONDatabase(workDir, { readOnly: true }), func, "llvm");
      expect(best).toBeDefined();
      const args = randomArgs(func, 7, { low: 0.5, high: 1 }) as TypedArray[];
      const expected = args.map((a) => a.slice() as TypedArray);
      compilePrimFunc(func).run(expected);
      const mod = await build(best!.sch.func, "c");
      mod(...args);
      mod.dispose();
      const out = args.length - 1;
      const got = args[out] as Float32Array;
      const want = expected[out] as Float32Array;
      for (let i = 0; i < want.length; i++) expect(Math.abs(got[i]! - want[i]!), `element ${i}`).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(want[i]!)));
    },
    180_000,
  );
});
