/**
 * The course's TVMScript and today's TVM's: `T.block` / `T.sblock`, and the two meanings of
 * `T.alloc_buffer` (a block allocation in the course's, a flat allocation in today's), picked by
 * an explicit dialect or, by default, from the function (`s_tir=`, `T.sblock*` spellings).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parsePrimFunc, parseTVMScript } from "../../src/parser/index.js";
import { printTVMScript } from "../../src/printer/index.js";
import { structuralEqual } from "../../src/structural/index.js";
import type { PrimFunc } from "../../src/func.js";
import { compilePrimFunc, randomArgs } from "../../src/exec/index.js";
import { gemmReluAdd } from "../../src/ops/index.js";

const COURSE = [
  "@T.prim_func",
  'def f(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):',
  "    B = T.alloc_buffer((8,))",
  "    for i in range(8):",
  '        with T.block("B"):',
  '            vi = T.axis.remap("S", [i])',
  "            B[vi] = A[vi] * T.float32(2)",
  "    for i in range(8):",
  '        with T.block("C"):',
  '            vi = T.axis.remap("S", [i])',
  "            C[vi] = B[vi] + T.float32(1)",
].join("\n");

function roundTripIn(f: PrimFunc, dialect: "course" | "tvm"): string {
  const printed = printTVMScript(f, { dialect });
  const again = parsePrimFunc(printed);
  expect(structuralEqual(again, f), printed).toBe(true);
  expect(printTVMScript(again, { dialect })).toBe(printed);
  return printed;
}

describe("block spellings", () => {
  it("the course's text and today's spelling of it parse to the same function", () => {
    const todays = COURSE.replace("@T.prim_func", "@T.prim_func(s_tir=True)")
      .replace("T.alloc_buffer", "T.sblock_alloc_buffer")
      .replaceAll("T.block(", "T.sblock(");
    expect(structuralEqual(parsePrimFunc(todays), parsePrimFunc(COURSE))).toBe(true);
  });

  it("prints the course's dialect by default and today's on request, each round-tripping exactly", () => {
    const f = parsePrimFunc(COURSE);
    const course = roundTripIn(f, "course");
    expect(course).toBe(printTVMScript(f));
    expect(course).toContain('with T.block("B"):');
    expect(course).toContain("B = T.alloc_buffer((8,))");
    const todays = roundTripIn(f, "tvm");
    expect(todays).toContain("@T.prim_func(s_tir=True)");
    expect(todays).toContain('# with T.sblock("root"):');
    expect(todays).toContain('with T.sblock("B"):');
    expect(todays).toContain("B = T.sblock_alloc_buffer((8,))");
    expect(todays).not.toContain("T.block(");
  });

  it("the course's gemm workload round-trips through today's dialect", () => {
    roundTripIn(gemmReluAdd(16).func, "tvm");
  });
});

describe("T.alloc_buffer in today's dialect", () => {
  const LOWERED = [
    "@T.prim_func(s_tir=True)",
    'def g(A: T.Buffer((4,), "float32")):',
    '    X = T.alloc_buffer((4,), scope="local", annotations={"tirx.volatile": True})',
    "    for i in range(4):",
    "        X[i] = A[i] + T.float32(1)",
    "    for i in range(4):",
    "        A[i] = X[i] * T.float32(2)",
  ].join("\n");

  it("is a flat allocation, its annotations attributes of its data", () => {
    const f = parsePrimFunc(LOWERED);
    expect(f.body.kind).toBe("Allocate");
    const decl = f.body.kind === "Allocate" ? f.body.body : undefined;
    expect(decl?.kind).toBe("DeclBuffer");
    const attr = decl?.kind === "DeclBuffer" ? decl.body : undefined;
    expect(attr?.kind === "AttrStmt" && attr.key).toBe("tirx.volatile");
    const todays = roundTripIn(f, "tvm");
    expect(todays).toContain('X = T.alloc_buffer((4,), scope="local", annotations={"tirx.volatile": T.bool(True)})');
    roundTripIn(f, "course");
  });

  it("computes the same as the course's flat spelling", () => {
    const f = parsePrimFunc(LOWERED);
    const g = parsePrimFunc(printTVMScript(f, { dialect: "course" }));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), (seed) => {
        const a = randomArgs(f, seed);
        const b = randomArgs(g, seed);
        compilePrimFunc(f).run(a);
        compilePrimFunc(g).run(b);
        expect(a).toEqual(b);
      }),
      { numRuns: 10 },
    );
  });

  it("an explicit dialect overrides the guess", () => {
    const text = ["@T.prim_func", 'def h(A: T.Buffer((4,), "float32")):', "    X = T.alloc_buffer((4,))", "    X[0] = A[0]"].join("\n");
    const course = [...parseTVMScript(text).functions.values()][0]!;
    expect(course.body.kind).toBe("BlockRealize");
    const todays = [...parseTVMScript(text, { dialect: "tvm" }).functions.values()][0]!;
    expect(todays.body.kind).toBe("Allocate");
  });

  it("annotations= on a block allocation is refused with its position", () => {
    const text = ["@T.prim_func", "def h():", '    X = T.alloc_buffer((4,), annotations={"k": 1})', "    X[0] = T.float32(0)"].join("\n");
    expect(() => parsePrimFunc(text)).toThrow(/3:30: error: T.alloc_buffer\(annotations=\.\.\.\) is a flat allocation's argument/);
  });
});
