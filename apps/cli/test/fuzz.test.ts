/**
 * Every subcommand on damaged, deeply nested or huge input: exit 0, 1 or 2 with a short message,
 * never an internal error or a stack trace (fast-check over mutations of a small program and of a
 * text trace).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { printTVMScript, vectorAdd } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runCli } from "../src/index.js";
import { MAX_ERROR_CHARS } from "../src/cli.js";
import { MAX_INPUT_BYTES } from "../src/load.js";
import { captureIO } from "./capture.js";

const dir = mkdtempSync(join(tmpdir(), "tessera-fuzz-"));
const examples = resolve(dirname(fileURLToPath(import.meta.url)), "../../../examples");
let counter = 0;
function file(text: string, ext = ".py"): string {
  const path = join(dir, `f${counter++}${ext}`);
  writeFileSync(path, text);
  return path;
}

const FUNC = vectorAdd(64).func;
const PROGRAM = printTVMScript(FUNC, { funcName: "vector_add" });
const gpu = new Schedule(FUNC);
const [i] = gpu.getLoops(gpu.getBlock("C"));
const [bx, tx] = gpu.split(i!, [null, 32]);
gpu.bind(bx, "blockIdx.x");
gpu.bind(tx, "threadIdx.x");
const GPU_TRACE_TEXT = gpu.trace.show();
const gpuTrace = file(JSON.stringify(gpu.trace), ".json");
const cpuTrace = join(examples, "vector_add_cpu.trace.json");

/** The subcommands, each given the damaged file. */
const INVOCATIONS: ((f: string) => string[])[] = [
  (f) => ["print", f],
  (f) => ["equal", f, join(examples, "vector_add.py")],
  (f) => ["run", f],
  (f) => ["apply", f, "--trace", cpuTrace],
  (f) => ["build", f, "--target", "c"],
  (f) => ["build", f, "--trace", gpuTrace, "--target", "nvidia/tesla-t4"],
  (f) => ["simulate", f, "--trace", gpuTrace],
];

const FRAGMENTS = [
  "(",
  ")",
  "[",
  "]",
  ":",
  ",",
  '"',
  "\n",
  "    ",
  "T.",
  "x",
  "0",
  "-1",
  ".",
  "=",
  "+",
  "#",
  "\\",
  "vi",
  "A",
  "C",
  "T.grid(",
  "for i in range(",
  "with T.block(",
  "T.float32(",
  "1e999",
  "\t",
];
const damage = fc.record({
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  deleteCount: fc.integer({ min: 0, max: 12 }),
  insert: fc.constantFrom(...FRAGMENTS, ""),
  repeat: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 100, max: 3000 })),
});

function damaged(text: string, d: { at: number; deleteCount: number; insert: string; repeat: number }): string {
  const i = Math.floor(d.at * text.length);
  return text.slice(0, i) + d.insert.repeat(d.repeat) + text.slice(i + d.deleteCount);
}

async function expectCleanOutcome(argv: string[]): Promise<void> {
  const io = captureIO();
  const code = await runCli(argv, io);
  expect([0, 1, 2], `${argv.join(" ")}: ${io.err}`).toContain(code);
  expect(io.err, argv.join(" ")).not.toContain("internal error");
  expect(io.err, argv.join(" ")).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(io.err.length).toBeLessThanOrEqual(MAX_ERROR_CHARS + 200);
  if (code === 2) expect(io.err).toMatch(/^tessera: /);
}

describe("fuzzing the CLI", () => {
  INVOCATIONS.forEach((invocation, n) => {
    it(`${invocation("FILE").join(" ")}: damaged programs give a clean outcome (fast-check)`, async () => {
      await fc.assert(
        fc.asyncProperty(damage, async (d) => expectCleanOutcome(invocation(file(damaged(PROGRAM, d))))),
        { numRuns: 25, seed: 100 + n },
      );
    }, 120_000);
  });

  it("apply with a damaged text trace gives a clean outcome (fast-check)", async () => {
    const program = file(PROGRAM);
    await fc.assert(
      fc.asyncProperty(damage, async (d) => expectCleanOutcome(["apply", program, "--trace", file(damaged(GPU_TRACE_TEXT, d), ".ts")])),
      { numRuns: 60, seed: 200 },
    );
  }, 120_000);

  it("a program nested 1,000 deep is one positioned error in every subcommand (regression: 13 stack traces)", async () => {
    const deep = file(PROGRAM.replace("C[v_i] = A[v_i] + B[v_i]", `C[v_i] = ${"(".repeat(1000)}A[v_i]${")".repeat(1000)} + B[v_i]`));
    for (const invocation of INVOCATIONS) {
      const io = captureIO();
      expect(await runCli(invocation(deep), io)).toBe(2);
      expect(io.err).toMatch(/^tessera: .*f\d+\.py:\d+:\d+: error: expression nesting deeper than 200 levels/);
    }
  });

  it("a file over the size limit is refused before it is read (regression: 50 MB took minutes and gigabytes)", async () => {
    const huge = file(`${PROGRAM}${"#".repeat(MAX_INPUT_BYTES)}\n`);
    for (const invocation of INVOCATIONS) {
      const io = captureIO();
      expect(await runCli(invocation(huge), io)).toBe(2);
      const size = readFileSync(huge).length;
      expect(io.err).toBe(`tessera: ${huge}: the file is 2.0 MiB (${size} bytes); tessera reads input files of up to 2.0 MiB (2097152 bytes)\n`);
    }
    expect(readFileSync(huge).length).toBeGreaterThan(MAX_INPUT_BYTES);
  });
});
