import { type PrimExpr, type PrimFunc, type Var, forEachExpr, intImm, floordiv, floormod, printExpr, sub, variable } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { flattenBuffer } from "../../src/lower/passes/index.js";
import { recombineDigits } from "../../src/lower/util/digit-recombination.js";
import { expectSameResults, parse } from "./helpers.js";

/** Indices of every store and load of `f`, printed. */
function accessIndices(f: PrimFunc): string[] {
  const out: string[] = [];
  const visit = (e: PrimExpr): void => {
    if (e.kind === "BufferLoad") out.push(`${e.buffer.name}[${e.indices.map((i) => printExpr(i)).join(", ")}]`);
  };
  const walk = (s: PrimFunc["body"]): void => {
    if (s.kind === "BufferStore") {
      out.push(`${s.buffer.name}[${s.indices.map((i) => printExpr(i)).join(", ")}]`);
      forEachExpr(s.value, visit);
    } else if (s.kind === "SeqStmt") s.seq.forEach(walk);
    else if ("body" in s && s.body !== undefined) walk(s.body as PrimFunc["body"]);
    else if (s.kind === "IfThenElse") walk(s.thenCase);
  };
  walk(f.body);
  return out;
}

const fusedCopy = (d0: number, d1: number, d2: number, guard: number): string => `
@T.prim_func
def main(A: T.Buffer((${d0}, ${d1}, ${d2}), "float32"), B: T.Buffer((${d0}, ${d1}, ${d2}), "float32")):
    for x in range(${d0 * d1 * d2 + guard}):
        if x < ${d0 * d1 * d2}:
            B[x // ${d1 * d2}, x % ${d1 * d2} // ${d2}, x % ${d2}] = A[x // ${d1 * d2}, x % ${d1 * d2} // ${d2}, x % ${d2}] + T.float32(1)
`;

describe("flattenBuffer with tvmForms: indices that are the digits of one value", () => {
  test("a fused iterator's digits flatten to the iterator itself", () => {
    const before = parse(fusedCopy(3, 4, 5, 0));
    const out = flattenBuffer(before, { paramAliases: true, tvmForms: true });
    expect(accessIndices(out)).toEqual(["B[x]", "A[x]"]);
    expectSameResults(out, before);
  });

  test("digits of a symbolic shape: the flat shape in TVM's canonical form, the index recombined", () => {
    const before = parse(`
@T.prim_func
def main(a: T.handle, b: T.handle, m: T.int32):
    A = T.match_buffer(a, (6, m, m), "float32")
    B = T.match_buffer(b, (6, m, m), "float32")
    for t in range(m * m * 6):
        B[t // (m * m), t % (m * m) // m, t % m] = A[t // (m * m), t % (m * m) // m, t % m]
`);
    const out = flattenBuffer(before, { paramAliases: true, tvmForms: true });
    expect(accessIndices(out)).toEqual(["B[t]", "A[t]"]);
    const shapes: string[] = [];
    const walk = (s: PrimFunc["body"]): void => {
      if (s.kind === "DeclBuffer") {
        shapes.push(printExpr(s.buffer.shape[0]!));
        walk(s.body);
      }
    };
    walk(out.body);
    expect(shapes).toEqual(["m * m * 6", "m * m * 6"]);
  });

  test("digits in the wrong places are not recombined", () => {
    const before = parse(`
@T.prim_func
def main(A: T.Buffer((4, 6), "float32"), B: T.Buffer((4, 6), "float32")):
    for x in range(24):
        B[x // 6, x % 4] = A[x % 4, x // 6]
`);
    const out = flattenBuffer(before, { paramAliases: true, tvmForms: true });
    expect(accessIndices(out).some((s) => s === "B[x]" || s === "A[x]")).toBe(false);
    expectSameResults(out, before);
  });

  test("property: with and without tvmForms the flattened function computes what it did", () => {
    const dim = fc.integer({ min: 1, max: 4 });
    fc.assert(
      fc.property(dim, dim, dim, fc.integer({ min: 0, max: 3 }), (d0, d1, d2, guard) => {
        const before = parse(fusedCopy(d0, d1, d2, guard));
        for (const opts of [{}, { paramAliases: true, tvmForms: true }]) expectSameResults(flattenBuffer(before, opts), before);
      }),
      { numRuns: 30 },
    );
  });
});

describe("recombineDigits", () => {
  const floorDiv = (a: number, b: number): number => Math.floor(a / b);
  const floorMod = (a: number, b: number): number => a - Math.floor(a / b) * b;
  const evaluate = (e: PrimExpr, env: ReadonlyMap<Var, number>): number => {
    if (e.kind === "IntImm") return e.value;
    if (e.kind === "Var") return env.get(e)!;
    if (e.kind === "Binary" && e.op === "floordiv") return floorDiv(evaluate(e.a, env), evaluate(e.b, env));
    if (e.kind === "Binary" && e.op === "floormod") return floorMod(evaluate(e.a, env), evaluate(e.b, env));
    if (e.kind === "Binary" && e.op === "mul") return evaluate(e.a, env) * evaluate(e.b, env);
    throw new Error(`unexpected ${printExpr(e)}`);
  };

  test("property (10^4 points, negative values and large dimensions too): Σ digit·stride equals the value it returns", () => {
    const x = variable("x", "int64");
    const equal = (a: PrimExpr, b: PrimExpr): boolean => a === b || (a.kind === "IntImm" && b.kind === "IntImm" && a.value === b.value);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 1 << 16 }), { minLength: 2, maxLength: 4 }),
        fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
        (dims, value) => {
          const strides: number[] = [];
          let acc = 1;
          for (let d = dims.length - 1; d >= 0; d--) {
            strides[d] = acc;
            acc *= dims[d]!;
          }
          const s = (d: number): PrimExpr => intImm(strides[d]!, "int64");
          const indices = dims.map((_, d) =>
            d === 0 ? floordiv(x, s(0)) : d === dims.length - 1 ? floormod(x, s(d - 1)) : floordiv(floormod(x, s(d - 1)), s(d)),
          );
          const recombined = recombineDigits(
            indices,
            strides.map((_, d) => s(d)),
            equal,
          );
          expect(recombined).toBe(x);
          const env = new Map([[x, value]]);
          const flat = indices.reduce((sum, idx, d) => sum + evaluate(idx, env) * strides[d]!, 0);
          expect(flat).toBe(value);
        },
      ),
      { numRuns: 10_000 },
    );
  });

  test("a middle digit over the wrong modulus is refused", () => {
    const x = variable("x", "int32");
    const c = (v: number): PrimExpr => intImm(v, "int32");
    const equal = (a: PrimExpr, b: PrimExpr): boolean => a === b || (a.kind === "IntImm" && b.kind === "IntImm" && a.value === b.value);
    const indices = [floordiv(x, c(20)), floordiv(floormod(x, c(10)), c(5)), floormod(x, c(5))];
    expect(recombineDigits(indices, [c(20), c(5), c(1)], equal)).toBeUndefined();
    expect(recombineDigits([sub(x, c(1)), floormod(x, c(5))], [c(5), c(1)], equal)).toBeUndefined();
  });
});
