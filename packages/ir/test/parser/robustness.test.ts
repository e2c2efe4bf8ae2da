/**
 * Damaged input must fail with a TVMScriptSyntaxError (with a position inside the text), never
 * with an internal error: random edits of corpus samples are parsed and the outcome is checked.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TVMScriptSyntaxError, parseTVMScript } from "../../src/parser/index.js";
import { corpusFiles, readCorpus } from "./helpers.js";

const samples = corpusFiles().map(readCorpus);
const FRAGMENTS = ["(", ")", "[", "]", ":", ",", '"', "\n", "    ", "T.", "x", "0", ".", "=", "+", "#", "\\", "vi", "A"];

const edit = fc.record({
  sample: fc.integer({ min: 0, max: samples.length - 1 }),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  deleteCount: fc.integer({ min: 0, max: 6 }),
  insert: fc.constantFrom(...FRAGMENTS, ""),
});

describe("TVMScript parser robustness", () => {
  it("edited samples either parse or raise a positioned TVMScriptSyntaxError", () => {
    fc.assert(
      fc.property(edit, ({ sample, at, deleteCount, insert }) => {
        const text = samples[sample]!;
        const i = Math.floor(at * text.length);
        const damaged = text.slice(0, i) + insert + text.slice(i + deleteCount);
        try {
          parseTVMScript(damaged);
        } catch (e) {
          expect(e).toBeInstanceOf(TVMScriptSyntaxError);
          const err = e as TVMScriptSyntaxError;
          const lines = damaged.split("\n").length;
          expect(err.line).toBeGreaterThanOrEqual(1);
          expect(err.line).toBeLessThanOrEqual(lines + 1);
          expect(err.column).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: 400, seed: 20240607 },
    );
  });
});
