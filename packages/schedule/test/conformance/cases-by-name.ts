/**
 * By-name variants: TVM's schedule methods take a block's name where they take a block handle
 * (looked up with get_block, recorded in the trace) and a buffer's name where they take a buffer
 * index. Each variant must give exactly the output of the handle-based case it mirrors.
 */
import type { ConformanceCase, ExpectedError } from "./runner.js";
import { CASES } from "./cases.js";
import { EW } from "./workloads.js";

const err = (error: string, messageIncludes: string): ExpectedError => ({ error, messageIncludes });

function mirror(name: string, apply: ConformanceCase["apply"]): ConformanceCase {
  const base = CASES.find((c) => c.name === name);
  if (base === undefined) throw new Error(`no conformance case named ${name}`);
  return { ...base, name: `${name}-by-name`, apply };
}

export const BY_NAME_CASES: ConformanceCase[] = [
  mirror("cache-read-intermediate-shared", (s) => {
    s.cacheRead("Z", "Y", "shared");
  }),
  mirror("cache-read-second-operand", (s) => {
    s.cacheRead("C", "B", "shared", ["C"]);
  }),
  mirror("cache-write-intermediate-local", (s) => {
    s.cacheWrite("Y", "Y", "local");
  }),
  mirror("cache-write-reduction-local", (s) => {
    s.cacheWrite("C", 0, "local");
  }),
  mirror("set-scope-shared", (s) => {
    s.setScope("Y", "Y", "shared");
  }),
  mirror("storage-align-annotation", (s) => {
    s.storageAlign("Y", 0, 0, 16, 1);
  }),
  mirror("compute-at-innermost", (s) => {
    s.computeAt("Y", s.getLoops("Z")[1]);
  }),
  mirror("reverse-compute-at-outer", (s) => {
    s.reverseComputeAt("Z", s.getLoops("Y")[0]);
  }),
  mirror("compute-inline-elementwise", (s) => {
    s.computeInline("Y");
  }),
  mirror("reverse-compute-inline-elementwise", (s) => {
    s.reverseComputeInline("Z");
  }),
  mirror("decompose-at-innermost", (s) => {
    s.decomposeReduction("C", s.getLoops("C")[2]);
  }),
  {
    name: "cache-read-error-unknown-buffer-name",
    primitive: "cache-read",
    before: EW,
    apply: (s) => {
      s.cacheRead(s.getBlock("Z"), "W", "shared");
    },
    expected: err("ScheduleUsageError", `neither reads nor writes a buffer named "W"`),
  },
  {
    name: "cache-read-error-written-buffer-name",
    primitive: "cache-read",
    before: EW,
    apply: (s) => {
      s.cacheRead(s.getBlock("Y"), "Y", "shared");
    },
    expected: err("ScheduleUsageError", `"Y" is a write buffer of block "Y", expected a read buffer`),
  },
  {
    name: "compute-inline-error-unknown-block-name",
    primitive: "compute-inline",
    before: EW,
    apply: (s) => {
      s.computeInline("V");
    },
    expected: err("BlockNotFoundError", "Cannot find a block with the name: V"),
  },
];
