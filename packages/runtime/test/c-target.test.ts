/**
 * The C target end to end: generated C compiled by the system C compiler, loaded with dlopen by
 * the native addon and called on host arrays, checked against the JS executor.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LoopSummary, buildC } from "@tessera/codegen";
import { type PrimFunc, type TypedArray, compilePrimFunc, ops, parsePrimFunc, randomArgs } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { cTargetUnavailable } from "./support/c-target-available.js";
import { CCompileError, ModuleArgumentError, build, buildHost, probeCCompiler } from "@tessera/runtime";
import * as d2l from "@tessera/corpus/d2l-cpu";

const cacheDir = mkdtempSync(join(tmpdir(), "tessera-c-test-"));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

const unavailable = cTargetUnavailable();
/** Diagnostics print only with TESSERA_TEST_VERBOSE=1 (README, Testing). */
const VERBOSE = process.env.TESSERA_TEST_VERBOSE === "1";
if (unavailable !== undefined && VERBOSE) console.warn(`C target tests skipped: ${unavailable}`);

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, label: string): void {
  expect(actual.length, label).toBe(expected.length);
  let bad = 0;
  let first = "";
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (!(Math.abs(a - e) <= 1e-4 + 1e-4 * Math.abs(e))) {
      if (bad === 0) first = `[${i}] got ${a}, expected ${e}`;
      bad++;
    }
  }
  expect(bad, `${label}: ${bad} mismatches, first ${first}`).toBe(0);
}

/** Runs `scheduled` compiled for the host and `original` in the JS executor on the same random inputs. */
async function expectMatchesExecutor(original: PrimFunc, scheduled: PrimFunc, seed: number, label: string, low = -1): Promise<LoopSummary> {
  const args = randomArgs(original, seed, { low, high: 1 }) as Float32Array[];
  const out = args.length - 1;
  args[out]!.fill(Number.NaN);
  const expected = args.map((a) => a.slice());
  compilePrimFunc(original).run(expected as TypedArray[]);
  const mod = await build(scheduled, "c", { cacheDir });
  try {
    mod(...args);
  } finally {
    mod.dispose();
  }
  expectClose(args[out]!, expected[out]!, label);
  return mod.generated.loops;
}

describe.skipIf(unavailable !== undefined)("C target: the d2l operators with their CPU schedules match the executor", () => {
  // Small sizes would run serially (too little work for a thread team): `parallel: true` keeps the parallel regions in the test.
  const par = { parallel: true };
  const cases: [string, () => d2l.ScheduledOperator, number?][] = [
    ["vector add (parallel chunks, vectorized, ragged tail)", () => d2l.vectorAddCpu(1000, 16, par)],
    ["broadcast add", () => d2l.broadcastAddCpu(37, 50, 16, par)],
    ["matmul, register tile (cacheWrite local, unroll, vectorize, parallel)", () => d2l.matmulCpu(40, 72, 24, { mr: 4, nr: 16 }, par)],
    ["matmul with B packed into panels (cacheRead + transformLayout)", () => d2l.matmulCpu(40, 64, 24, { mr: 4, nr: 16 }, { ...par, pack: true })],
    ["conv2d", () => d2l.conv2dCpu({ channels: 8, size: 20, kernel: 3, padding: 1 }, {}, par)],
    ["conv2d, tiles chosen from the shape, serial where small", () => d2l.conv2dCpu({ channels: 12, size: 20, kernel: 3, padding: 1 })],
    [
      "conv2d with packed weights, output channels vectorized (ragged column tile)",
      () => d2l.conv2dCpu({ channels: 32, size: 14, kernel: 3, padding: 1 }, { vectorized: "channels", owTile: 6 }, par),
    ],
    [
      "conv2d with packed weights, tiles chosen from the shape",
      () => d2l.conv2dCpu({ channels: 16, size: 12, kernel: 3, padding: 1 }, { vectorized: "channels" }),
    ],
    ["depthwise conv2d", () => d2l.depthwiseConv2dCpu({ channels: 8, size: 20, kernel: 3, padding: 1 }, undefined, par)],
    ["max pooling", () => d2l.maxPoolCpu({ channels: 4, size: 20, kernel: 3, padding: 1, stride: 1 }, par)],
    ["avg pooling, stride 2", () => d2l.avgPoolCpu({ channels: 4, size: 20, kernel: 3, padding: 1, stride: 2 }, par)],
    // Positive inputs: the variance goes under a square root.
    ["batch norm", () => d2l.batchNormCpu(4, 20, par), 0.1],
  ];
  for (const [label, make, low] of cases) {
    it(label, async () => {
      const op = make();
      await expectMatchesExecutor(op.original, op.scheduled, 11, label, low);
    });
  }

  it("matmul 96³ and conv2d 16×32×32 (parallel forced): the parallel regions really run on a thread team", async () => {
    for (const op of [
      d2l.matmulCpu(96, 96, 96, { mr: 8, nr: 16 }, { parallel: true }),
      d2l.conv2dCpu({ channels: 16, size: 32, kernel: 3, padding: 1 }, {}, { parallel: true }),
    ]) {
      const loops = await expectMatchesExecutor(op.original, op.scheduled, 5, op.name);
      expect(loops.parallel, op.name).toBeGreaterThanOrEqual(1);
    }
  });

  it("pooling reads a padding stage: no bounds check in the vectorized window loop (inlined padding kept gcc from vectorizing it)", () => {
    for (const op of [
      d2l.maxPoolCpu({ channels: 4, size: 20, kernel: 3, padding: 1, stride: 1 }),
      d2l.avgPoolCpu({ channels: 4, size: 20, kernel: 3, padding: 1, stride: 1 }),
    ]) {
      const lines = buildC(op.scheduled).source.split("\n");
      const reads = lines.filter((l) => /Pool(Max|Sum)\[.*\] = /.test(l) && l.includes("PaddedX["));
      expect(reads.length, op.name).toBeGreaterThan(0);
      for (const l of reads) expect(l, op.name).not.toMatch(/\?/);
    }
  });

  it("conv2d at 16 channels, 64×64 (the benchmark's size, schedule chosen from the shape) matches the executor and runs without a parallel region", async () => {
    const op = d2l.conv2dCpu({ channels: 16, size: 64, kernel: 3, padding: 1 }, {}, { cores: 2 });
    const loops = await expectMatchesExecutor(op.original, op.scheduled, 16, "conv2d c=16 64×64");
    expect(loops.parallel).toBe(0);
    expect(loops.simd).toBeGreaterThan(0);
  });

  it("conv2d at 32 channels, 64×64 on 2 cores: enough work for a parallel convolution, and it matches the executor", async () => {
    const op = d2l.conv2dCpu({ channels: 32, size: 64, kernel: 3, padding: 1 }, {}, { cores: 2 });
    const loops = await expectMatchesExecutor(op.original, op.scheduled, 17, "conv2d c=32 64×64");
    expect(loops.parallel).toBeGreaterThanOrEqual(1);
  });
});

/** A random CPU schedule of a small matmul: tiles (ragged too), then parallel / vectorize / unroll on chosen loops. */
function randomCpuSchedule(p: {
  n: number;
  m: number;
  l: number;
  ti: number;
  tj: number;
  par: number;
  vec: boolean;
  unroll: boolean;
  local: boolean;
}): PrimFunc {
  const sch = new Schedule(ops.matmul(p.n, p.m, p.l).func);
  const c = sch.getBlock("C");
  const writeBack = p.local ? sch.cacheWrite(c, 0, "local") : undefined;
  const [i, j, k] = sch.getLoops(c) as [LoopRV, LoopRV, LoopRV];
  const [io, ii] = sch.split(i, [null, p.ti]) as [LoopRV, LoopRV];
  const [jo, ji] = sch.split(j, [null, p.tj]) as [LoopRV, LoopRV];
  sch.reorder(io, jo, k, ii, ji);
  if (writeBack !== undefined) sch.reverseComputeAt(writeBack, jo);
  if (p.vec) sch.vectorize(ji);
  if (p.unroll) sch.unroll(ii);
  if (p.par === 1) sch.parallel(io);
  if (p.par === 2) sch.parallel(sch.fuse(io, jo));
  return sch.func;
}

describe.skipIf(unavailable !== undefined)("C target: random CPU schedules keep the executor's results", () => {
  it("matmul with random tiles, parallel, vectorize, unroll and local accumulators", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          n: fc.integer({ min: 1, max: 24 }),
          m: fc.integer({ min: 1, max: 24 }),
          l: fc.integer({ min: 1, max: 9 }),
          ti: fc.integer({ min: 1, max: 6 }),
          tj: fc.integer({ min: 1, max: 17 }),
          par: fc.integer({ min: 0, max: 2 }),
          vec: fc.boolean(),
          unroll: fc.boolean(),
          local: fc.boolean(),
        }),
        async (p) => {
          const original = ops.matmul(p.n, p.m, p.l).func;
          await expectMatchesExecutor(original, randomCpuSchedule(p), p.n * 31 + p.m, JSON.stringify(p));
        },
      ),
      { numRuns: 6, seed: 20261125 },
    );
  });
});

describe.skipIf(unavailable !== undefined)("C target: compilation, cache, arguments, timing", () => {
  it("passes scalar parameters (float64, int32) and float64 buffers", async () => {
    const f = parsePrimFunc(`
@T.prim_func
def scale(A: T.Buffer((37,), "float64"), B: T.Buffer((37,), "float64"), alpha: T.float64, shift: T.int32):
    T.func_attr({"global_symbol": "scale"})
    for i in range(37):
        with T.block("B"):
            vi = T.axis.spatial(37, i)
            B[vi] = A[vi] * alpha + T.Cast("float64", shift)
`);
    const [A, B] = randomArgs(f, 9) as Float64Array[];
    const expected = B!.slice();
    compilePrimFunc(f).run([A!, expected, 2.5, -3] as never);
    const mod = await build(f, "c", { cacheDir });
    expect(mod.params.map((p) => `${p.name}:${p.dtype}`)).toEqual(["A:float64", "B:float64", "alpha:float64", "shift:int32"]);
    mod(A, B, 2.5, -3);
    expectClose(B!, expected, "scale");
    expect(() => mod(A, B, "2.5", -3)).toThrow(/argument 2 \(alpha\): expected a finite number/);
    mod.dispose();
  });

  it("a second build of the same code is a cache hit; the generated C is kept beside the library", async () => {
    const op = d2l.vectorAddCpu(64);
    const first = await build(op.scheduled, "c", { cacheDir });
    const second = await build(op.scheduled, "c", { cacheDir });
    expect(second.compiled.cacheHit).toBe(true);
    expect(second.compiled.path).toBe(first.compiled.path);
    expect(readFileSync(second.compiled.sourcePath, "utf8")).toBe(first.source);
    first.dispose();
    second.dispose();
  });

  it("a C compile failure shows the compiler's message and the generated file's path", async () => {
    const generated = buildC(d2l.vectorAddCpu(64).scheduled);
    const broken = { ...generated, source: generated.source.replace("tessera_failed = 0;", "tessera_failed = undeclared_thing;") };
    const err = await buildHost(broken, "c", { cacheDir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CCompileError);
    const e = err as CCompileError;
    expect(e.message).toContain(e.sourcePath);
    expect(e.message).toContain("undeclared_thing");
    expect(readFileSync(e.sourcePath, "utf8")).toContain("undeclared_thing");
  });

  it("without OpenMP the build warns, falls back to serial loops and still computes the right result", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-noomp-"));
    const wrapper = join(dir, "cc-without-openmp");
    writeFileSync(
      wrapper,
      `#!/bin/sh\nfor a in "$@"; do [ "$a" = "-fopenmp" ] && { echo "cc: error: OpenMP is not installed here" >&2; exit 1; }; done\nexec cc "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.message);
    // Node prints every process warning to stderr through its own listener; this one is expected,
    // so it is only collected here (and printed as well with TESSERA_TEST_VERBOSE=1).
    const printers = VERBOSE ? [] : process.listeners("warning");
    for (const l of printers) process.off("warning", l);
    process.on("warning", onWarning);
    try {
      const info = await probeCCompiler(wrapper);
      expect(info.openmp).toBe(false);
      expect(info.openmpProblem).toContain("OpenMP is not installed here");
      const op = d2l.matmulCpu(16, 32, 8, { mr: 4, nr: 8 });
      const mod = await buildHost(op.scheduled, "c", { cacheDir: dir, compiler: wrapper });
      expect(mod.compiled.openmp).toBe(false);
      expect(mod.compiled.flags).toContain("-fopenmp-simd");
      const args = randomArgs(op.original, 3) as Float32Array[];
      const expected = args.map((a) => a.slice());
      compilePrimFunc(op.original).run(expected as TypedArray[]);
      mod(...args);
      expectClose(args[2]!, expected[2]!, "serial fallback");
      mod.dispose();
      await new Promise((r) => setImmediate(r));
      expect(warnings.some((w) => w.includes("parallel loops of the C target run serially"))).toBe(true);
    } finally {
      process.off("warning", onWarning);
      for (const l of printers) process.on("warning", l);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("checks arguments: count, type and size, and buffers that share memory", async () => {
    const op = d2l.vectorAddCpu(8);
    const mod = await build(op.scheduled, "c", { cacheDir });
    const a = new Float32Array(8);
    expect(() => mod(a, a.slice())).toThrow(/takes 3 arguments/);
    expect(() => mod(a, new Float64Array(8), new Float32Array(8))).toThrow(ModuleArgumentError);
    expect(() => mod(a, new Float32Array(7), new Float32Array(8))).toThrow(/argument 1 \(B\)/);
    const shared = new Float32Array(16);
    expect(() => mod(a, shared.subarray(0, 8), shared.subarray(4, 12))).toThrow(/share memory/);
    mod.dispose();
    expect(() => mod(a, a.slice(), a.slice())).toThrow(/disposed/);
  });

  it("timeEvaluator follows TVM's semantics: repeat samples of at least `number` runs, and the function really runs", async () => {
    const op = d2l.vectorAddCpu(256);
    const mod = await build(op.scheduled, "c", { cacheDir });
    const [A, B, C] = randomArgs(op.original, 5) as Float32Array[];
    C!.fill(0);
    const t = await mod.timeEvaluator({ number: 4, repeat: 3, minRepeatMs: 0 })(A, B, C);
    expect(t.samples).toHaveLength(3);
    expect(t.number).toBe(4);
    expect(t.clock).toBe("host-steady-clock");
    expect(C![17]).toBe(Math.fround(A![17]! + B![17]!));
    mod.dispose();
  });
});
