/**
 * Today's TVMScript forms with no older spelling: `T.thread_id` (a scope-id definition), `&`/`|`/`^`
 * on bools (TVM's bool is uint1), and `T.Call(..., ret_ty="void")` on an opaque intrinsic.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parsePrimFunc } from "../../src/parser/index.js";
import { structuralEqual } from "../../src/structural/index.js";
import { THREAD_ID_KEY } from "../../src/stmt.js";
import { forEachStmt } from "../../src/functor.js";
import { compilePrimFunc } from "../../src/exec/index.js";
import { errorOf, roundTrip } from "./helpers.js";

const fn = (params: string, ...body: string[]): string => ["@T.prim_func", `def f(${params}):`, ...body.map((l) => `    ${l}`)].join("\n");

describe("T.thread_id", () => {
  it("defines a thread index over the given extent, flat or as a with-scope", () => {
    const { f, printed } = roundTrip(fn('A: T.Buffer((4,), "int32")', "T.device_entry()", "tx = T.thread_id([4])", "A[tx] = tx"));
    const attrs: string[] = [];
    forEachStmt(f.body, (s) => {
      if (s.kind === "AttrStmt") attrs.push(`${s.key}:${s.node?.name ?? ""}`);
    });
    expect(attrs).toEqual(["tirx.device_entry:", `${THREAD_ID_KEY}:tx`]);
    expect(printed).toContain("tx = T.thread_id([4])\n");
    const scoped = roundTrip(fn('A: T.Buffer((4,), "int32")', "with T.thread_id([4]) as tx:", "    A[tx] = tx", "A[0] = 1"));
    expect(scoped.printed).toContain("with T.thread_id([4]) as tx:");
  });

  it("keeps a uint32 dtype and names bad input", () => {
    const { printed } = roundTrip(fn('A: T.Buffer((4,), "uint32")', 'tx = T.thread_id([4], dtype="uint32")', "A[tx] = tx"));
    expect(printed).toContain('T.thread_id([4], dtype="uint32")');
    expect(errorOf(fn('A: T.Buffer((4,), "int32")', 'tx = T.thread_id([4], dtype="float32")', "A[0] = 1")).reason).toBe(
      'T.thread_id: dtype must be "int32" or "uint32", got "float32"',
    );
    expect(errorOf(fn('A: T.Buffer((4,), "int32")', "tx = T.thread_id([4, 2])", "A[0] = 1")).reason).toMatch(/expected one extent, got 2/);
    expect(errorOf(fn('A: T.Buffer((4,), "int32")', "T.thread_id([4])", "A[0] = 1")).reason).toMatch(/T\.thread_id/);
  });
});

describe("bitwise operators on bools", () => {
  it("T.bitwise_and / or / xor take bool vectors and round-trip", () => {
    const { printed } = roundTrip(
      fn(
        'A: T.Buffer((5,), "float32"), B: T.Buffer((5,), "float32")',
        "T.bitwise_and(A[0:5] > T.Broadcast(T.float32(0), 5), B[0:5] > T.Broadcast(T.float32(0), 5))",
        "T.bitwise_or(A[0:5] < T.Broadcast(T.float32(0), 5), T.Broadcast(T.bool(True), 5))",
      ),
    );
    expect(printed).toContain("T.bitwise_and(A[0:5] > ");
    expect(errorOf(fn('A: T.Buffer((5,), "float32")', "T.shift_left(A[0] > T.float32(0), A[1] > T.float32(0))")).reason).toBe(
      "T.shift_left expects integer operands, got bool",
    );
  });

  it("executes as the logical operators on the CPU", () => {
    const f = roundTrip(
      fn(
        'A: T.Buffer((3,), "int32"), C: T.Buffer((3,), "int32")',
        "C[0] = T.Select(T.bitwise_and(A[0] > 0, A[1] > 0), 1, 0)",
        "C[1] = T.Select(T.bitwise_or(A[0] > 0, A[1] > 0), 1, 0)",
        "C[2] = T.Select(T.bitwise_xor(A[0] > 0, A[1] > 0), 1, 0)",
      ),
    ).f;
    const run = compilePrimFunc(f);
    fc.assert(
      fc.property(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 }), (x, y) => {
        const a = Int32Array.from([x, y, 0]);
        const c = new Int32Array(3);
        run.run([a, c]);
        const [p, q] = [x > 0, y > 0];
        expect([...c]).toEqual([Number(p && q), Number(p || q), Number(p !== q)]);
      }),
    );
  });
});

describe("getattr(T, name)", () => {
  it("is the T.* function of that name, the name a string or a closure value", () => {
    const direct = parsePrimFunc(fn('A: T.Buffer((1,), "float16")', "A[0] = T.float16(1.5)"));
    const viaGetattr = parsePrimFunc(fn('A: T.Buffer((1,), "float16")', 'A[0] = getattr(T, "float16")(1.5)'));
    expect(structuralEqual(viaGetattr, direct)).toBe(true);
    const fromClosure = parsePrimFunc(fn('A: T.Buffer((1,), "float16")', "A[0] = getattr(T, dt)(1.5)"), { closure: { dt: "float16" } });
    expect(structuralEqual(fromClosure, direct)).toBe(true);
    expect(errorOf(fn('A: T.Buffer((1,), "float16")', 'A[0] = getattr(np, "float16")(1.5)')).reason).toBe("getattr is supported only as getattr(T, name)");
    expect(errorOf(fn('A: T.Buffer((1,), "float16")', 'A[0] = getattr(T, "1x")(1.5)')).reason).toBe('getattr(T, "1x"): not a TVMScript name');
  });
});

describe("T.Call with ret_ty", () => {
  it("an opaque call declared void prints back through T.Call", () => {
    const { f, printed } = roundTrip(fn("", 'T.Call(tvm.ir.Op.get("tirx.tvm_call_packed"), ["dummy_function_name"], ret_ty="void")'));
    let dtype: string | undefined;
    forEachStmt(f.body, (s) => {
      if (s.kind === "Evaluate" && s.value.kind === "Call") dtype = s.value.dtype;
    });
    expect(dtype).toBe("void");
    expect(printed).toContain('T.Call("tirx.tvm_call_packed", ["dummy_function_name"], ret_ty="void")');
    expect(roundTrip(fn("", 'T.tvm_call_packed("g")')).printed).toContain('T.tvm_call_packed("g")');
  });

  it("a pure intrinsic keeps its own dtype", () => {
    expect(errorOf(fn('A: T.Buffer((1,), "float32")', 'T.Call("tirx.likely", [A[0] > T.float32(0)], ret_ty="void")')).reason).toMatch(/has dtype/);
  });
});

describe("a dtype picked from a closure tuple", () => {
  it("dtypes[i] reads the item; out of range is named", () => {
    const text = (i: number): string => fn(`A: T.Buffer((2,), dtypes[${i}])`, "A[0] = A[1]");
    const f = parsePrimFunc(text(-1), { closure: { dtypes: { expr: '("float16", "int8")' } } });
    expect([...f.bufferMap.values()][0]!.dtype).toBe("int8");
    expect(() => parsePrimFunc(text(2), { closure: { dtypes: { expr: '("float16", "int8")' } } })).toThrow("index 2 is out of range for a tuple of 2 items");
  });
});
