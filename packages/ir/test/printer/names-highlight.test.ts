import { describe, expect, it } from "vitest";
import { declBuffer } from "../../src/buffer.js";
import { IRError } from "../../src/errors.js";
import { add, floatImm, variable } from "../../src/expr.js";
import { irModule, primFunc } from "../../src/func.js";
import { printExpr, printStmt, printTVMScript } from "../../src/printer/index.js";
import { block, blockRealize, bufferStore, evaluate, forLoop, seq } from "../../src/stmt.js";
import { gemmReluAdd } from "./workloads.js";

const lines = (...ls: string[]): string => ls.join("\n");

describe("names", () => {
  it("deduplicates distinct objects sharing a hint while both are in scope", () => {
    const [outer, inner] = [variable("i"), variable("i")];
    expect(printExpr(add(outer, inner))).toBe("i + i_1");
    const A = declBuffer("A", [4, 4]);
    expect(printStmt(forLoop(outer, 4, forLoop(inner, 4, bufferStore(A, floatImm(0), [outer, inner]), { kind: "parallel" })))).toBe(
      lines("for i in range(4):", "    for i_1 in T.parallel(4):", "        A[i, i_1] = T.float32(0.0)"),
    );
  });

  it("reuses a name in sibling scopes and keeps parameters' names", () => {
    const [i1, i2] = [variable("i"), variable("i")];
    const A = declBuffer("A", [4]);
    const s = seq([forLoop(i1, 4, bufferStore(A, floatImm(0), [i1])), forLoop(i2, 4, bufferStore(A, floatImm(1), [i2]))]);
    expect(printStmt(s)).toBe(lines("for i in range(4):", "    A[i] = T.float32(0.0)", "for i in range(4):", "    A[i] = T.float32(1.0)"));
  });

  it("renames a buffer that collides with a parameter and sanitises non-identifiers", () => {
    const a = variable("a", "handle");
    const A = declBuffer("A", [4]);
    const otherA = declBuffer("A", [4]);
    const tmp = declBuffer("x.rf", [4]);
    const k = variable("for");
    const body = blockRealize(
      [],
      true,
      block({
        name: "root",
        allocBuffers: [otherA, tmp],
        body: forLoop(k, 4, seq([bufferStore(otherA, floatImm(0), [k]), bufferStore(tmp, floatImm(0), [k])])),
      }),
    );
    expect(printTVMScript(primFunc([a], new Map([[a, A]]), body))).toContain(
      lines(
        '    # with T.block("root"):',
        "    A_1 = T.alloc_buffer((4,))",
        "    x_rf = T.alloc_buffer((4,))",
        "    for for_1 in range(4):",
        "        A_1[for_1] = T.float32(0.0)",
        "        x_rf[for_1] = T.float32(0.0)",
      ),
    );
  });
});

describe("highlight", () => {
  it("underlines the header of highlighted loops, blocks and statements with carets", () => {
    const func = gemmReluAdd(8);
    const root = func.body.kind === "BlockRealize" ? func.body.block : undefined;
    const bodySeq = root?.body;
    if (bodySeq?.kind !== "SeqStmt") throw new Error("fixture shape changed");
    const gemmLoop = bodySeq.seq[0]!;
    const reluLoop = bodySeq.seq[1]!;
    if (reluLoop.kind !== "For" || reluLoop.body.kind !== "For" || reluLoop.body.body.kind !== "BlockRealize") {
      throw new Error("fixture shape changed");
    }
    const reluBlock = reluLoop.body.body.block;
    const out = printTVMScript(func, { funcName: "main", highlight: new Set<object>([gemmLoop, reluBlock]) });
    expect(out).toContain(lines("    for i, j, k in T.grid(8, 8, 8):", "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^", '        with T.block("gemm"):'));
    expect(out).toContain(lines('        with T.block("relu"):', "        ^^^^^^^^^^^^^^^^^^^^^", '            vi, vj = T.axis.remap("SS", [i, j])'));
    expect(out.match(/\^/g)?.length).toBe(31 + 21);
  });

  it("underlines single-line statements and the implicit root comment", () => {
    const A = declBuffer("A", [4]);
    const store = bufferStore(A, floatImm(0), [0]);
    expect(printStmt(seq([evaluate(0), store]), { highlight: new Set([store]) })).toBe(
      lines("T.evaluate(0)", "A[0] = T.float32(0.0)", "^^^^^^^^^^^^^^^^^^^^^"),
    );
    const func = gemmReluAdd(4);
    expect(printTVMScript(func, { highlight: new Set([func.body]) })).toContain(lines('    # with T.block("root"):', "    ^^^^^^^^^^^^^^^^^^^^^^^"));
  });
});

describe("colour and input checking", () => {
  it("colours keywords, strings and numbers only when asked", () => {
    const plain = printTVMScript(gemmReluAdd(4));
    expect(plain).not.toContain("\x1b[");
    const coloured = printTVMScript(gemmReluAdd(4), { color: true });
    expect(coloured).toContain("\x1b[");
    expect(coloured).toContain("\x1b[35;1mfor\x1b[0m");
    expect(coloured).toContain('\x1b[32m"gemm"\x1b[0m');
    // Stripping the escapes gives back the plain text.
    // eslint-disable-next-line no-control-regex
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, "")).toBe(plain);
  });

  it("keeps caret lines as wide as the visible header when coloured", () => {
    const i = variable("i");
    const loop = forLoop(i, 4, evaluate(0));
    expect(printStmt(loop, { color: true, highlight: new Set([loop]) }).split("\n")[1]).toBe("^".repeat("for i in range(4):".length));
  });

  it("reports what was passed instead of IR", () => {
    expect(() => printTVMScript(null as never)).toThrow(IRError);
    expect(() => printTVMScript(evaluate(0) as never)).toThrow(/got a Evaluate/);
    expect(() => printStmt(undefined as never)).toThrow(/expects a statement/);
    expect(() => printExpr(3 as never)).toThrow(/expects an expression, got number/);
    expect(() => printStmt(forLoop(variable("i"), 4, undefined as never))).toThrow(/where a statement is expected/);
    expect(() => printTVMScript(irModule({ f: { kind: "PrimFunc" } as never }))).toThrow(IRError);
  });
});
