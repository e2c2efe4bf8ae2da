/**
 * Tuning for the CPU target end to end, with the real C compiler and the runner's child process:
 * tuneTIR on a small matmul, the database record replayed, a candidate that crashes or hangs, and
 * a C compile failure. No timing assertions.
 */
import { mkdtempSync } from "node:fs";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildC, target as targetOf } from "@tessera/codegen";
import { ops, randomArgs, runPrimFunc, structuralEqual } from "@tessera/ir";
import { buildHost, compileC } from "@tessera/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { type ArgInfo, CpuBuilder, JSONDatabase, LocalRunner, type RunnerInput, queryBestRecord, scheduleFromRecord, tuneTIR } from "../../src/index.js";
import { SMALL_SEARCH } from "./search-workers.js";

const target = targetOf("c");
const tmp = (): string => mkdtempSync(join(tmpdir(), "tessera-cpu-tuning-"));

describe("tuneTIR for the CPU target (gcc, isolated runner)", () => {
  const func = ops.matmul(32, 32, 32).func;
  const workDir = tmp();
  let result: Awaited<ReturnType<typeof tuneTIR>> | undefined;

  it("tunes a 32³ matmul: every trial is measured or failed with a reason, and the best record is checked-correct code", async () => {
    result = await tuneTIR(func, target, { workDir, maxTrialsGlobal: 6, numTrialsPerIter: 6, seed: 3, writeCurve: false, ...SMALL_SEARCH });
    expect(result.history).toHaveLength(6);
    for (const t of result.history) {
      if (t.ok) expect(t.latencySecs).toBeGreaterThan(0);
      else expect(t.error).toMatch(/\S/);
    }
    expect(result.history.some((t) => t.ok)).toBe(true);
    expect(result.bestRecord?.target).toMatchObject({ name: "c", arch: "native" });
    // The best schedule is a tiled program, and computes the matmul. Which loops survive depends on the
    // tile sizes the search picked (a factor of 1 leaves no loop), so the check reads the trace's splits
    // and asks only that some split loop (`i_1`, `j_0`, ...) reaches the C source.
    const best = result.bestSchedule!;
    expect(best.trace.instructions.some((i) => i.kind.name === "Split")).toBe(true);
    const source = buildC(best.func, target).source;
    expect(source).toMatch(/for \(int32_t [ijk]_\d/);
    const args = randomArgs(func, 5) as Float32Array[];
    const expected = args.map((a) => a.slice());
    runPrimFunc(func, expected as never);
    const mod = await buildHost(best.func, target);
    mod(...args);
    mod.dispose();
    args[2]!.forEach((x, i) => expect(Math.abs(x - expected[2]![i]!)).toBeLessThan(1e-3));
  }, 120_000);

  it("the database record in the work dir replays to the same program", async () => {
    expect(result).toBeDefined();
    const reopened = new JSONDatabase(workDir);
    const record = queryBestRecord(reopened, func);
    expect(record).toBeDefined();
    const replayed = scheduleFromRecord(record!, func);
    expect(structuralEqual(replayed.func, result!.bestSchedule!.func)).toBe(true);
    expect(buildC(replayed.func, target).source).toBe(buildC(result!.bestSchedule!.func, target).source);
  });

  it("the builder's library of the best record is the one build() loads: the same C, compiled with the same flags", async () => {
    const record = queryBestRecord(new JSONDatabase(workDir), func)!;
    const replayed = scheduleFromRecord(record, func).func;
    const cacheDir = tmp();
    const built = await new CpuBuilder({ cacheDir }).buildOne({ func: replayed, target });
    expect(built.ok).toBe(true);
    const rebuilt = await buildHost(replayed, target, { cacheDir });
    rebuilt.dispose();
    // The compile cache keys a library by compiler, flags and source: one path means all three agree.
    expect(rebuilt.compiled.cacheHit).toBe(true);
    expect(rebuilt.compiled.path).toBe(built.ok ? built.artifact.host?.libraryPath : undefined);
    expect(rebuilt.source).toBe(built.ok ? built.artifact.source : undefined);
  });
});

/** A hand-written library with the packed entry point the runner calls, for candidates the C target would not generate. */
async function librarySource(name: string, body: string): Promise<RunnerInput> {
  const source = `#include <stdint.h>\n__attribute__((visibility("default"))) int32_t ${name}_packed(void** args) {\n  float* c = (float*)args[0];\n${body}\n  return 0;\n}\n`;
  const compiled = await compileC(source, { name });
  const argsInfo: ArgInfo[] = [{ kind: "TENSOR", dtype: "float32", shape: [16] }];
  return {
    argsInfo,
    artifact: {
      name,
      source,
      kernels: [],
      host: {
        libraryPath: compiled.path,
        sourcePath: compiled.sourcePath,
        packedSymbol: `${name}_packed`,
        params: [{ kind: "buffer", name: "C", dtype: "float32", elements: 16 }],
      },
    },
  };
}

describe("the CPU runner's isolation", () => {
  const runner = new LocalRunner({ timeoutSec: 2, evaluator: { number: 1, repeat: 2, minRepeatMs: 0 } });
  afterAll(() => runner.dispose());

  it("a candidate that segfaults or hangs is a failed trial; the next ones are measured in a fresh child", async () => {
    const good = await librarySource("fills", "  for (int i = 0; i < 16; ++i) c[i] = (float)i;");
    const segfault = await librarySource("segfaults", "  *(volatile int*)(uintptr_t)8 = 1;");
    const hang = await librarySource("hangs", "  for (volatile int x = 0; ; ++x) {}");
    const results = await runner.run([segfault, good, hang]);
    expect(results.map((r) => (r.ok ? "ok" : r.error))).toEqual([expect.any(String), "ok", expect.any(String)]);
    const errors = results.flatMap((r) => (r.ok ? [] : [r.error]));
    expect(errors[0]).toMatch(/SIGSEGV|signal|exited/);
    expect(errors[1]).toMatch(/timed out/);
    for (const r of results) if (r.ok) expect(r.runSecs).toHaveLength(2);
    expect(runner.childrenStarted).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

describe("the CPU builder", () => {
  it("a C compile failure is the candidate's error, with the compiler's message and the generated file's path", async () => {
    const brokenCc = fileURLToPath(new URL("./broken-cc.sh", import.meta.url));
    const builder = new CpuBuilder({ compiler: brokenCc, cacheDir: tmp() });
    const [result] = await builder.build([{ func: ops.matmul(8, 8, 8).func, target }]);
    expect(result?.ok).toBe(false);
    const error = result!.ok ? "" : result!.error;
    expect(error).toMatch(/CCompileError/);
    expect(error).toMatch(/tessera_no_such_header\.h/);
    const path = /failed on (\S+\.c)/.exec(error)?.[1];
    expect(path).toBeDefined();
    expect(existsSync(path!)).toBe(true);
  }, 60_000);

  it("a compile over its CPU-time budget fails saying so (the budget is CPU time, so a loaded machine's waits do not count)", async () => {
    // 4096 SIMD loops unrolled by gcc: seconds of CPU for cc1, as the CPU space's large unroll budgets made.
    const slow = `void f(float* restrict a, const float* restrict b) {
#pragma GCC unroll 64
  for (int i = 0; i < 64; ++i)
#pragma GCC unroll 64
    for (int j = 0; j < 64; ++j)
#pragma omp simd
      for (int k = 0; k < 32; ++k) a[i * 2048 + j * 32 + k] += b[j * 32 + k] * a[i];
}
`;
    await expect(compileC(slow, { name: "slow", cacheDir: tmp(), cpuTimeLimitSec: 1 })).rejects.toThrow(/CPU-time budget of 1 s/);
    await expect(compileC("int f(void) { return 1; }", { name: "quick", cacheDir: tmp(), cpuTimeLimitSec: 1 })).resolves.toMatchObject({ cacheHit: false });
  }, 300_000);

  it("identical candidates of a batch compile once and share the library", async () => {
    const builder = new CpuBuilder({ cacheDir: tmp() });
    const input = { func: ops.matmul(8, 8, 8).func, target };
    const [a, b] = await builder.build([input, input]);
    expect(a?.ok && b?.ok).toBe(true);
    if (a?.ok && b?.ok) expect(a.artifact.host?.libraryPath).toBe(b.artifact.host?.libraryPath);
  }, 60_000);
});
