/** A while loop (TVM's While) through lowering: C and CUDA print it as a C while loop. */
import { parsePrimFunc } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { buildC, codegenCuda, lower, target } from "../src/index.js";

function counting(loop: string): string {
  return [
    "@T.prim_func",
    'def f(A: T.Buffer((8,), "int32"), n: T.int32):',
    `    for i in ${loop}:`,
    '        with T.block("b"):',
    "            vi = T.axis.spatial(8, i)",
    "            T.reads()",
    "            T.writes(A[vi])",
    "            A[vi] = 0",
    "            while A[vi] < n:",
    "                A[vi] = A[vi] + vi + 1",
  ].join("\n");
}

describe("while loops in generated code", () => {
  it("the C target writes a while loop around the lowered body", () => {
    const source = buildC(parsePrimFunc(counting("range(8)")), "c").source;
    expect(source).toMatch(/ {4}while \(\(A\[i\] < n\)\) \{\n {6}A\[i\] = \(\(A\[i\] \+ i\) \+ 1\);\n {4}\}/);
  });

  it("the CUDA target writes a while loop inside the kernel", () => {
    const source = codegenCuda(lower(parsePrimFunc(counting('T.thread_binding(8, thread="threadIdx.x")')), target("cuda"))).source;
    expect(source).toContain("while (A[((int)threadIdx.x)] < n) {");
  });
});
