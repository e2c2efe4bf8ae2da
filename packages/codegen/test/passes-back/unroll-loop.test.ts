import {
  type PrimFunc,
  type Stmt,
  add,
  bufferLoad,
  bufferStore,
  declBuffer,
  floordiv,
  floormod,
  forEachStmt,
  forLoop,
  mul,
  primFunc,
  ramp,
  variable,
} from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { LoweringError } from "../../src/lower/errors.js";
import {
  C_AUTO_UNROLL_MAX_STEP,
  C_UNROLL_CONFIG,
  DEFAULT_UNROLL_CONFIG,
  MAX_UNROLLED_STATEMENTS,
  cUnrollLoopPass,
  unrollLoop,
  unrollLoopPass,
} from "../../src/lower/passes/unroll-loop.js";
import { CTX, errorOf, expectSameResults, expectScript, parse, print, runPass } from "./helpers.js";

function func(body: string): string {
  return `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), n: T.int32):
    T.func_attr({"global_symbol": "main"})
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
${body.replace(/^\n+/, "").replace(/^/gm, "    ")}
`;
}

function loopKinds(f: PrimFunc): string[] {
  const kinds: string[] = [];
  forEachStmt(f.body, (s) => {
    if (s.kind === "For") kinds.push(s.forKind);
  });
  return kinds;
}

describe("unrollLoop", () => {
  test("a small unrolled loop is expanded, its variable replaced by each constant", () => {
    const after = runPass(
      unrollLoopPass,
      func(`
for u in T.unroll(4):
    B[threadIdx_x * 4 + u] = A[threadIdx_x * 4 + u] + T.float32(1)`),
    );
    expectScript(
      after,
      func(`
B[threadIdx_x * 4] = A[threadIdx_x * 4] + T.float32(1)
B[threadIdx_x * 4 + 1] = A[threadIdx_x * 4 + 1] + T.float32(1)
B[threadIdx_x * 4 + 2] = A[threadIdx_x * 4 + 2] + T.float32(1)
B[threadIdx_x * 4 + 3] = A[threadIdx_x * 4 + 3] + T.float32(1)`),
    );
  });

  test("vector indices: a Ramp's base and a Ramp's stride that mention the variable are both replaced", () => {
    // Regression: copies once fixed only the base, leaving the loop variable in the stride.
    // (Built directly: TVMScript has no way to write a Ramp of symbolic stride.)
    const A = declBuffer("A", [64]);
    const B = declBuffer("B", [64]);
    const u = variable("u");
    const store = bufferStore(B, bufferLoad(A, [ramp(mul(u, 16), 1, 4)]), [ramp(mul(u, 32), add(u, 4), 4)]);
    const before = primFunc(
      [A.data, B.data],
      new Map([
        [A.data, A],
        [B.data, B],
      ]),
      forLoop(u, 2, store, { kind: "unrolled" }),
    );
    const after = runPass(unrollLoopPass, before);
    expect(
      print(after)
        .split("\n")
        .filter((l) => l.includes("B[")),
    ).toEqual(["    B[0:16:4] = A[0:4]", "    B[32:52:5] = A[16:20]"]);
    expectSameResults(after, before);
  });

  test("nested serial loops are repeated with the body; serial loops themselves are not unrolled", () => {
    const after = runPass(
      unrollLoopPass,
      func(`
for u in T.unroll(2):
    for j in range(3):
        B[u * 8 + j] = A[j]`),
    );
    expect(loopKinds(after)).toEqual(["serial", "serial"]);
  });

  test("storage the body allocates first is allocated once around the copies", () => {
    const src = func(`
for u in T.unroll(2):
    t = T.allocate([2], "float32", "local")
    t_1 = T.Buffer((2,), data=t, scope="local")
    t_1[u] = A[u]
    B[u] = t_1[u] * T.float32(2)`);
    const after = runPass(unrollLoopPass, src);
    expectScript(
      after,
      func(`
t = T.allocate([2], "float32", "local")
t_1 = T.Buffer((2,), data=t, scope="local")
t_1[0] = A[0]
B[0] = t_1[0] * T.float32(2)
t_1[1] = A[1]
B[1] = t_1[1] * T.float32(2)`),
    );
    expectSameResults(after, parse(src));
  });

  describe("stays a loop of kind unrolled (#pragma unroll)", () => {
    const cases: Record<string, string> = {
      "more than 512 statements once expanded (64 × 16)": `
for u in T.unroll(64):
    for j in range(16):
        B[j] = A[u]`,
      "a symbolic extent": `
for u in T.unroll(n):
    B[u % 64] = A[u % 64]`,
      "a body that allocates storage after its first statement (it would be declared twice in one C scope)": `
for u in T.unroll(2):
    B[u + 8] = A[u]
    with T.allocate([1], "float32", "local") as t:
        t_1 = T.Buffer((1,), data=t, scope="local")
        t_1[0] = A[u]
        B[u] = t_1[0]`,
      "a body that declares a variable": `
for u in T.unroll(2):
    x: T.int32 = u * 3
    B[x] = A[x]`,
    };
    for (const [what, body] of Object.entries(cases)) {
      test(what, () => {
        const f = parse(func(body));
        const after = unrollLoopPass.run(f, CTX);
        expect(loopKinds(after)[0]).toBe("unrolled");
        expect(after).toBe(f);
      });
    }
  });

  test("property: expansion preserves sequential results", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 999 }), (min, extent, seed) => {
        const original = parse(
          func(`
for u in T.unroll(${min}, ${min + extent}):
    B[(threadIdx_x * 8 + u) % 64] = B[(threadIdx_x * 8 + u + 1) % 64] + A[u * 3 % 64]
    if u % 2 == 0:
        B[u] = B[u] * T.float32(2)`),
        );
        const after = unrollLoopPass.run(original, CTX);
        expect(loopKinds(after)).toEqual([]);
        expectSameResults(after, original, seed);
      }),
      { numRuns: 30 },
    );
  });

  describe("pragmas (TVM UnrollLoop: pragma_auto_unroll_max_step / pragma_unroll_explicit)", () => {
    const NEST = `
with T.attr(None, "pragma_auto_unroll_max_step", MAX_STEP):
    for i in range(2):
        for j in range(4):
            B[threadIdx_x * 8 + i * 4 + j] = A[threadIdx_x * 8 + j]
    for k in range(32):
        B[k] = A[k] + B[k]
for m in range(2):
    B[m] = A[m]`;

    test("serial loops within the step budget are expanded; the budget counts inner unrolled extents", () => {
      const after = runPass(unrollLoopPass, func(NEST.replace("MAX_STEP", "16")));
      expectScript(
        after,
        func(`
B[threadIdx_x * 8] = A[threadIdx_x * 8]
B[threadIdx_x * 8 + 1] = A[threadIdx_x * 8 + 1]
B[threadIdx_x * 8 + 2] = A[threadIdx_x * 8 + 2]
B[threadIdx_x * 8 + 3] = A[threadIdx_x * 8 + 3]
B[threadIdx_x * 8 + 4] = A[threadIdx_x * 8]
B[threadIdx_x * 8 + 5] = A[threadIdx_x * 8 + 1]
B[threadIdx_x * 8 + 6] = A[threadIdx_x * 8 + 2]
B[threadIdx_x * 8 + 7] = A[threadIdx_x * 8 + 3]
for k in range(32):
    B[k] = A[k] + B[k]
for m in range(2):
    B[m] = A[m]`),
      );
      expectSameResults(after, parse(func(NEST.replace("MAX_STEP", "16"))));
    });

    test("a loop over the budget stays serial around its unrolled inner loop", () => {
      const after = runPass(unrollLoopPass, func(NEST.replace("MAX_STEP", "4")));
      expectScript(
        after,
        func(`
for i in range(2):
    B[threadIdx_x * 8 + i * 4] = A[threadIdx_x * 8]
    B[threadIdx_x * 8 + i * 4 + 1] = A[threadIdx_x * 8 + 1]
    B[threadIdx_x * 8 + i * 4 + 2] = A[threadIdx_x * 8 + 2]
    B[threadIdx_x * 8 + i * 4 + 3] = A[threadIdx_x * 8 + 3]
for k in range(32):
    B[k] = A[k] + B[k]
for m in range(2):
    B[m] = A[m]`),
      );
    });

    test("pragma_unroll_explicit = 0: unrolled loops stay loops of kind unrolled (#pragma unroll)", () => {
      const src = func(`
T.attr(None, "pragma_unroll_explicit", 0)
with T.attr(None, "pragma_auto_unroll_max_step", 64):
    for i in range(2):
        for j in range(4):
            B[threadIdx_x * 8 + i * 4 + j] = A[threadIdx_x * 8 + j]
for u in T.unroll(4):
    B[u] = A[u]`);
      const after = runPass(unrollLoopPass, src);
      expectScript(
        after,
        func(`
for i in T.unroll(2):
    for j in T.unroll(4):
        B[threadIdx_x * 8 + i * 4 + j] = A[threadIdx_x * 8 + j]
for u in T.unroll(4):
    B[u] = A[u]`),
      );
      expectSameResults(after, parse(src));
    });

    test("an inner pragma overrides the outer one in its subtree only", () => {
      const src = func(`
T.attr(None, "pragma_auto_unroll_max_step", 8)
with T.attr(None, "pragma_unroll_explicit", T.bool(False)):
    for i in range(4):
        B[i] = A[i]
for j in range(4):
    B[j + 4] = A[j]`);
      expect(loopKinds(runPass(unrollLoopPass, src))).toEqual(["unrolled"]);
    });

    test("a loop with an ordinary loop inside is not auto-unrolled, whatever the budget", () => {
      const src = func(`
T.attr(None, "pragma_auto_unroll_max_step", 512)
for i in range(2):
    for j in range(n):
        B[(i * 8 + j) % 64] = A[j % 64]`);
      expect(loopKinds(runPass(unrollLoopPass, src))).toEqual(["serial", "serial"]);
    });

    test("the C target clamps the budget to C_AUTO_UNROLL_MAX_STEP: a nest within 512 steps but over 64 stays rolled there, results unchanged", () => {
      // Regression: budget 512 from the CPU space unrolled a register tile's k loop and spatial loops
      // around its vector loops into hundreds of SIMD loops, which gcc compiled for minutes.
      const src = func(`
T.attr(None, "pragma_auto_unroll_max_step", 512)
for i in range(8):
    for j in range(16):
        B[(i * 16 + j) % 64] = A[j] + A[i]`);
      expect(C_AUTO_UNROLL_MAX_STEP).toBe(64);
      expect(loopKinds(runPass(unrollLoopPass, src))).toEqual([]);
      const capped = runPass(cUnrollLoopPass, src);
      expect(loopKinds(capped)).toEqual(["serial"]);
      expectSameResults(capped, parse(src));
      const within = src.replace("512", "64").replace("range(8)", "range(4)");
      expect(loopKinds(runPass(cUnrollLoopPass, within))).toEqual([]);
    });

    test("at most autoMaxDepth unrolled loops may be nested in an auto-unrolled loop", () => {
      const f = parse(
        func(`
for i in range(2):
    for j in range(2):
        for k in range(2):
            B[i * 4 + j * 2 + k] = A[k]`),
      );
      const after = unrollLoop(f, { ...DEFAULT_UNROLL_CONFIG, autoMaxStep: 1000, autoMaxDepth: 1, explicitUnroll: false });
      expect(loopKinds(after)).toEqual(["serial", "unrolled", "unrolled"]);
    });

    test("an explicit budget above the default expansion cap lets a larger loop be expanded", () => {
      const src = (step: number) =>
        func(`
T.attr(None, "pragma_auto_unroll_max_step", ${step})
for i in range(64):
    for j in range(16):
        B[j] = A[i]`);
      let stores = 0;
      forEachStmt(runPass(unrollLoopPass, src(1024)).body, (s) => void (s.kind === "BufferStore" && stores++));
      expect(stores).toBe(1024);
      expect(loopKinds(runPass(unrollLoopPass, src(512)))).toEqual(["serial"]);
    });

    // Found by the property below: an unrolled loop of extent 0 vanished with the ordinary loop
    // inside it, yet still kept the serial loop around it from being unrolled.
    test("an expanded loop of extent 0 leaves nothing that keeps the loops around it from unrolling", () => {
      const src = func(`
T.attr(None, "pragma_auto_unroll_max_step", 0)
for i in range(0):
    for u in T.unroll(0):
        for j in range(1):
            B[j] = A[j]`);
      expect(loopKinds(runPass(unrollLoopPass, src))).toEqual([]);
    });

    test("bad pragma values are LoweringErrors naming the attribute", () => {
      const bad = (key: string, value: string) => func(`T.attr(None, "${key}", ${value})\nB[0] = A[0]`);
      expect(errorOf(() => runPass(unrollLoopPass, bad("pragma_auto_unroll_max_step", "-1")), LoweringError).message).toBe(
        'unrollLoop: The annotation "pragma_auto_unroll_max_step" of an attribute statement expects a non-negative integer, got the expression -1',
      );
      expect(errorOf(() => runPass(unrollLoopPass, bad("pragma_unroll_explicit", "2")), LoweringError).message).toMatch(
        /expects 0, 1 or a boolean, got the expression 2/,
      );
    });

    test("property: every serial loop left fails TVM's rule, the pragmas are gone, and results are unchanged", () => {
      interface Loop {
        readonly kind: "serial" | "unroll";
        readonly extent: number;
        readonly body: readonly (Loop | "store")[];
      }
      const loop: fc.Memo<Loop> = fc.memo((depth) =>
        fc.record({
          kind: fc.constantFrom<Loop["kind"]>("serial", "serial", "unroll"),
          extent: fc.integer({ min: 0, max: 4 }),
          body: fc.array(depth > 1 ? fc.oneof(fc.constant<"store">("store"), loop(depth - 1)) : fc.constant<"store">("store"), { minLength: 1, maxLength: 3 }),
        }),
      );
      let counter = 0;
      const render = (l: Loop, indent: string, vars: readonly string[]): string => {
        const v = `v${counter++}`;
        const inner = [...vars, v];
        const header = `${indent}for ${v} in ${l.kind === "serial" ? "range" : "T.unroll"}(${l.extent}):`;
        const lines = l.body.map((b, k) => {
          if (b !== "store") return render(b, `${indent}    `, inner);
          const index = inner.map((x, d) => `${x} * ${d + k + 1}`).join(" + ");
          return `${indent}    B[(${index}) % 64] = B[(${index} + 1) % 64] + A[(${index}) % 64]`;
        });
        return [header, ...lines].join("\n");
      };
      fc.assert(
        fc.property(loop(3), fc.integer({ min: 0, max: 48 }), fc.boolean(), (nest, maxStep, explicit) => {
          counter = 0;
          const src = func(
            `T.attr(None, "pragma_auto_unroll_max_step", ${maxStep})\nT.attr(None, "pragma_unroll_explicit", ${explicit ? 1 : 0})\n${render(nest, "", [])}`,
          );
          const original = parse(src);
          const after = unrollLoopPass.run(original, CTX);
          forEachStmt(after.body, (s) => {
            expect(s.kind === "AttrStmt" && s.key.startsWith("pragma_")).toBe(false);
            if (s.kind !== "For") return;
            const steps = s.extent.kind === "IntImm" ? s.extent.value * storesIn(s.body) : Infinity;
            // Explicit unrolling expands every unrolled loop but those over the expansion cap.
            if (explicit && s.forKind === "unrolled") expect(steps).toBeGreaterThan(MAX_UNROLLED_STATEMENTS);
            if (s.forKind === "serial" && !containsSerialLoop(s.body)) expect(steps).toBeGreaterThan(maxStep);
          });
          expectSameResults(after, original);
        }),
        { numRuns: 200 },
      );
    });
  });
});

function containsSerialLoop(s: Stmt): boolean {
  let found = false;
  forEachStmt(s, (x) => void (x.kind === "For" && x.forKind === "serial" && (found = true)));
  return found;
}

/** Stores a body executes, inner (unrolled) loops counted extent times: TVM's step count. */
function storesIn(s: Stmt): number {
  switch (s.kind) {
    case "BufferStore":
      return 1;
    case "SeqStmt":
      return s.seq.reduce((n, x) => n + storesIn(x), 0);
    case "For":
      return (s.extent.kind === "IntImm" ? s.extent.value : 1) * storesIn(s.body);
    default:
      return 0;
  }
}

describe("unrollLoop around vectorized loops (the C target)", () => {
  test("a serial loop whose body is a vectorized loop unrolls within the step budget, the vector loop repeated per row (regression: a vectorized loop blocked every loop around it)", () => {
    const A = declBuffer("A", [64]);
    const B = declBuffer("B", [64]);
    const i = variable("i");
    const j = variable("j");
    const store = bufferStore(B, add(bufferLoad(A, [add(mul(i, 16), j)]), bufferLoad(A, [j])), [add(mul(i, 16), j)]);
    const before = primFunc(
      [A.data, B.data],
      new Map([
        [A.data, A],
        [B.data, B],
      ]),
      forLoop(i, 4, forLoop(j, 16, store, { kind: "vectorized" })),
    );
    const after = unrollLoop(before, { ...DEFAULT_UNROLL_CONFIG, autoMaxStep: 4 });
    expect(loopKinds(after)).toEqual(["vectorized", "vectorized", "vectorized", "vectorized"]);
    expectSameResults(after, before);
    // Over the budget (4 rows × 1 vector step > 3): kept as a loop.
    expect(loopKinds(unrollLoop(before, { ...DEFAULT_UNROLL_CONFIG, autoMaxStep: 3 }))).toEqual(["serial", "vectorized"]);
  });
});

describe("unrollLoop around strided vector loops (the C target's stridedVectorLanes)", () => {
  // RewriteLayout's copy of a 64×64 A into 4-row slivers: the vector loop over a row's 64 columns stores at stride 4.
  const A = declBuffer("A", [4096]);
  const P = declBuffer("P", [4096]);
  const r = variable("r");
  const c = variable("c");
  const nest = (store: Stmt): PrimFunc =>
    primFunc(
      [A.data, P.data],
      new Map([
        [A.data, A],
        [P.data, P],
      ]),
      forLoop(r, 64, forLoop(c, 64, store, { kind: "vectorized" })),
    );
  const sliver = add(add(mul(floordiv(r, 4), 256), mul(c, 4)), floormod(r, 4));
  const transposing = nest(bufferStore(P, bufferLoad(A, [add(mul(r, 64), c)]), [sliver]));
  const contiguous = nest(bufferStore(P, bufferLoad(A, [add(mul(r, 64), c)]), [add(mul(r, 64), c)]));
  const withBudget = { ...DEFAULT_UNROLL_CONFIG, autoMaxStep: C_AUTO_UNROLL_MAX_STEP };

  test("a loop around a vector loop that stores at stride 4 stays rolled: 64 rows × 64 lanes is over the budget (regression: #pragma GCC unroll 64 around it took gcc 11–16 s for a 64³ matmul)", () => {
    const after = unrollLoop(transposing, { ...withBudget, stridedVectorLanes: true });
    expect(loopKinds(after)).toEqual(["serial", "vectorized"]);
    expectSameResults(after, transposing);
    // TVM's count (one step per vector loop) unrolls it, as the C target did before.
    expect(loopKinds(unrollLoop(transposing, withBudget))).toEqual(["unrolled", "vectorized"]);
  });

  test("a unit-stride vector loop still counts as one step: the rows around it unroll", () => {
    const after = unrollLoop(contiguous, { ...withBudget, stridedVectorLanes: true });
    expect(loopKinds(after)).toEqual(["unrolled", "vectorized"]);
    expectSameResults(after, contiguous);
  });

  test("a strided load counts as well as a strided store, and the C target's pass applies the rule", () => {
    const gather = nest(bufferStore(P, bufferLoad(A, [add(mul(c, 64), r)]), [add(mul(r, 64), c)]));
    expect(loopKinds(unrollLoop(gather, { ...C_UNROLL_CONFIG, autoMaxStep: C_AUTO_UNROLL_MAX_STEP }))).toEqual(["serial", "vectorized"]);
    expect(loopKinds(unrollLoop(contiguous, { ...C_UNROLL_CONFIG, autoMaxStep: C_AUTO_UNROLL_MAX_STEP }))).toEqual(["unrolled", "vectorized"]);
  });
});
