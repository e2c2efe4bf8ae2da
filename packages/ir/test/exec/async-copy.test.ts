/**
 * `T.ptx_cp_async` and the async queue attributes in the IR: construction checks, TVMScript
 * printing and parsing (dtype first, as TVM prints it; TVM's integer attribute subject), and the
 * sequential executor, where every copy lands when it is issued.
 */
import { describe, expect, it } from "vitest";
import {
  ExecutionError,
  IRError,
  TVMScriptSyntaxError,
  asAsyncCopy,
  compilePrimFunc,
  intImm,
  parsePrimFunc,
  printTVMScript,
  ptxCpAsync,
  variable,
} from "../../src/index.js";
import { ErrorSiteTable, ImmediateCopies } from "../../src/exec/executor-kit.js";

/** 8 threads (run one after another here) each copy `lanes` floats of A into shared memory, then write them to B. */
function copyScript(opts: { lanes: number; dstOffset?: string; srcOffset?: string; predicate?: string; n?: number }): string {
  const lanes = opts.lanes;
  const n = opts.n ?? 8 * lanes;
  const dst = opts.dstOffset ?? `threadIdx_x * ${lanes}`;
  const src = opts.srcOffset ?? `threadIdx_x * ${lanes}`;
  const pred = opts.predicate === undefined ? "" : `, ${opts.predicate}`;
  return `
@T.prim_func
def main(A: T.Buffer((${n},), "float32"), B: T.Buffer((${8 * lanes},), "float32")):
    T.func_attr({"global_symbol": "copy"})
    S = T.allocate([${8 * lanes}], "float32", "shared")
    S_1 = T.Buffer((${8 * lanes},), data=S, scope="shared")
    for threadIdx_x in range(8):
        with T.attr(0, "async_commit_queue_scope", 0):
            T.ptx_cp_async("float32", S, ${dst}, A.data, ${src}, ${lanes * 4}${pred})
        with T.attr(0, "async_wait_queue_scope", 0):
            with T.attr(0, "async_wait_inflight_count", 0):
                for j in range(${lanes}):
                    B[threadIdx_x * ${lanes} + j] = S_1[threadIdx_x * ${lanes} + j]
`;
}

function run(script: string, a: Float32Array, outputs: number): Float32Array {
  const b = new Float32Array(outputs).fill(-1);
  compilePrimFunc(parsePrimFunc(script)).run([a, b]);
  return b;
}

const iota = (n: number): Float32Array => Float32Array.from({ length: n }, (_, i) => i + 0.5);

describe("T.ptx_cp_async in TVMScript", () => {
  it("prints with the element dtype first and parses back to the same call", () => {
    const f = parsePrimFunc(copyScript({ lanes: 4, predicate: "threadIdx_x < 6" }));
    const text = printTVMScript(f);
    expect(text).toContain('T.ptx_cp_async("float32", S, threadIdx_x * 4, A.data, threadIdx_x * 4, 16, threadIdx_x < 6)');
    expect(printTVMScript(parsePrimFunc(text))).toBe(text);
  });

  it("reads TVM's integer subject of an attribute as no subject", () => {
    const text = printTVMScript(parsePrimFunc(copyScript({ lanes: 1 })));
    expect(text).toContain('T.attr(None, "async_commit_queue_scope", 0)');
    expect(text).toContain('T.attr(None, "async_wait_inflight_count", 0)');
  });

  it("exposes its operands to passes", () => {
    const dst = variable("S", "handle");
    const src = variable("A", "handle");
    const call = ptxCpAsync({ dtype: "float16", dst, dstOffset: intImm(8), src, srcOffset: intImm(16), bytes: 16, predicate: undefined });
    expect(call.dtype).toBe("float16");
    expect(asAsyncCopy(call)).toEqual({ dtype: "float16", dst, dstOffset: intImm(8), src, srcOffset: intImm(16), bytes: 16, predicate: undefined });
  });

  it.each([
    ["a size cp.async cannot copy", copyScript({ lanes: 3 }), /copies 4, 8 or 16 bytes/],
    ["no dtype", copyScript({ lanes: 1 }).replace('T.ptx_cp_async("float32", ', "T.ptx_cp_async("), /takes the dtype first/],
    ["a source that is not a buffer's data", copyScript({ lanes: 1 }).replace("A.data", "threadIdx_x"), /source must be a buffer's data/],
    ["a predicate that is not a bool", copyScript({ lanes: 1, predicate: "threadIdx_x" }), /predicate must be a scalar bool/],
    ["too many operands", copyScript({ lanes: 1, predicate: "True, True" }), /optional predicate; got 7/],
  ])("rejects %s with a syntax error at the call", (_what, script, message) => {
    let err: unknown;
    try {
      parsePrimFunc(script);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TVMScriptSyntaxError);
    expect(String(err)).toMatch(message);
  });

  it("rejects a float16 copy of 2 bytes when built directly", () => {
    const h = variable("h", "handle");
    expect(() => ptxCpAsync({ dtype: "float16", dst: h, dstOffset: intImm(0), src: h, srcOffset: intImm(0), bytes: 2, predicate: undefined })).toThrow(IRError);
  });
});

describe("the sequential executor", () => {
  it("lands 4-byte and 16-byte copies when they are issued", () => {
    for (const lanes of [1, 4]) {
      const a = iota(8 * lanes);
      expect(Array.from(run(copyScript({ lanes }), a, 8 * lanes))).toEqual(Array.from(a));
    }
  });

  it("zero-fills where the predicate is false, without reading the source there", () => {
    // A holds 6 float4s; threads 6 and 7 would read past its end.
    const a = iota(24);
    const b = run(copyScript({ lanes: 4, predicate: "threadIdx_x < 6", n: 24 }), a, 32);
    expect(Array.from(b)).toEqual([...Array.from(a), ...new Array<number>(8).fill(0)]);
  });

  it("reports a source range past the end of the buffer", () => {
    const script = copyScript({ lanes: 4, n: 24 });
    expect(() => run(script, iota(24), 32)).toThrow(/out-of-bounds load from buffer A: indices \[24\] are outside its shape \[24\]/);
  });

  it("reports a misaligned copy (a 16-byte cp.async needs 16-byte aligned addresses)", () => {
    const script = copyScript({ lanes: 4, srcOffset: "threadIdx_x * 4 + 2", n: 40 });
    expect(() => run(script, iota(40), 32)).toThrow(ExecutionError);
    expect(() => run(script, iota(40), 32)).toThrow(/misaligned cp.async of 4 elements: destination element 0, source element 2/);
  });

  it("ImmediateCopies ignores commit and wait: the data is already there", () => {
    const q = new ImmediateCopies(new ErrorSiteTable());
    const dst = new Float32Array(4);
    q.copy(dst, 0, Float32Array.of(1, 2, 3, 4), 0, 4, true, 0, undefined);
    expect(Array.from(dst)).toEqual([1, 2, 3, 4]);
    q.commit();
    q.wait(5);
    q.drain();
    expect(Array.from(dst)).toEqual([1, 2, 3, 4]);
  });
});
