/** Traces given as the text `Trace.show()` prints are parsed and replayed (regression: only JSON was read). */
import { gemmReluAdd, structuralEqual } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoopRV, Schedule, TraceTextError, applyTraceText } from "../src/index.js";

const FUNC = gemmReluAdd(64).func;

function scheduled(): Schedule {
  const sch = new Schedule(FUNC, { seed: 5 });
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm);
  const [i0, i1] = sch.split(i!, sch.samplePerfectTile(i!, 2, 16));
  const [j0, j1] = sch.split(j!, [null, 16], { preserveUnitIters: false, disablePredication: false });
  sch.reorder(i0!, j0!, i1!, j1!);
  sch.bind(i0!, "blockIdx.x");
  sch.bind(j1!, "threadIdx.x");
  const shared = sch.cacheRead(gemm, 0, "shared");
  sch.computeAt(shared, k!);
  sch.annotate(k!, "pragma_unroll", 4);
  sch.computeInline(sch.getBlock("relu"));
  const loc = sch.sampleComputeLocation(sch.getBlock("add"));
  void loc;
  return sch;
}

function errorOf(fn: () => void): TraceTextError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TraceTextError) return err;
    throw err;
  }
  throw new Error("no error");
}

describe("text traces", () => {
  it("replaying show() text gives the same function and the same trace", () => {
    const original = scheduled();
    const text = original.trace.show();
    const sch = new Schedule(FUNC);
    applyTraceText(text, sch);
    expect(structuralEqual(sch.func, original.func)).toBe(true);
    expect(sch.trace.show()).toBe(text);
  });

  it("reads a trace_submission.ts as students paste it (doc comment, import, export function)", () => {
    const original = scheduled();
    const file = `/**\n * My schedule.\n */\n${original.trace.show({ functionName: "applyTrace" })}\n`;
    const sch = new Schedule(FUNC);
    applyTraceText(file, sch);
    expect(structuralEqual(sch.func, original.func)).toBe(true);
  });

  it("accepts location marks and a function name given to getBlock", () => {
    const sch = new Schedule(FUNC);
    applyTraceText(`const b0 = sch.getBlock("relu", "gemm_relu_add");\nsch.computeAt(b0, LoopRV.ROOT);`, sch, { funcName: "gemm_relu_add" });
    expect(sch.trace.instructions.map((i) => i.kind.name)).toEqual(["GetBlock", "ComputeAt"]);
    expect(LoopRV.ROOT.isRootMark).toBe(true);
  });

  it("names the line and column of what it cannot read", () => {
    const sch = new Schedule(FUNC);
    const cases: [string, RegExp][] = [
      ['const b0 = sch.getBlock("gemm");\nb0 = 3;', /^2:1: expected a schedule call such as 'sch\.getBlock\("name"\)', found 'b0'/],
      ['const b0 = sch.getBlock("gemm");\nconst x = sch.eval("1");', /^2:11: unknown schedule method 'eval'/],
      ["const [l1] = sch.getLoops(b9);", /^1:27: 'b9' is not defined: no earlier line of the trace binds it/],
      ['const b0 = sch.getBlock("gemm");\nconst [l1] = sch.getLoops(b0);', /^2:14: sch\.getLoops returned 3 values, but the line binds 1 names/],
      ['const b0 = sch.getBlock("nope");', /^1:12: sch\.getBlock\(…\) failed:\n.*Cannot find a block with the name: nope/s],
      ['sch.transformLayout(b0, "A", (i, j) => [j, i]);', /^1:30: an index map .* give this trace as JSON/],
      ['const b0 = sch.getBlock("gemm"); #', /^1:34: unexpected character "#"/],
      ['const b0 = sch.getBlock("gemm"', /^1:31: expected ',' or '\)', found the end of the text/],
      ["sch.split(" + "[".repeat(40) + "]".repeat(40) + ")", /nested deeper than 16 levels/],
      ['const b0 = sch.getBlock("gemm") const', /^1:33: expected ';' or a new line/],
    ];
    for (const [text, expected] of cases) expect(errorOf(() => applyTraceText(text, sch)).message, text).toMatch(expected);
  });

  it("a wrong argument type is a TraceTextError naming the line, never a TypeError", () => {
    const sch = new Schedule(FUNC);
    const err = errorOf(() => applyTraceText('const b0 = sch.getBlock("gemm");\nsch.split(b0, 4);', sch));
    expect(err.line).toBe(2);
    expect(err.message).toMatch(/^2:1: sch\.split\(…\) failed:/);
  });

  it("damaged show() text only ever fails with a TraceTextError (fast-check)", () => {
    const text = scheduled().trace.show();
    const pieces = [
      "(",
      ")",
      "[",
      "]",
      "{",
      "}",
      ",",
      ";",
      "=",
      "=>",
      '"',
      "'",
      "/*",
      "//",
      "\n",
      "sch.",
      "b0",
      "l1",
      "-",
      "1e9",
      "LoopRV.",
      "const [",
      "@",
      "\\",
    ];
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 8 }),
        fc.constantFrom(...pieces, ""),
        fc.integer({ min: 1, max: 400 }),
        (at, cut, piece, times) => {
          const i = Math.floor(at * text.length);
          const damaged = text.slice(0, i) + piece.repeat(times) + text.slice(i + cut);
          try {
            applyTraceText(damaged, new Schedule(FUNC));
          } catch (e) {
            expect(e).toBeInstanceOf(TraceTextError);
            expect((e as TraceTextError).line).toBeGreaterThanOrEqual(1);
          }
        },
      ),
      { numRuns: 200, seed: 3 },
    );
  });
});
