import { attrStmt, bufferStore, declBuffer, floatImm, primFunc } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { LoweringError } from "../../src/lower/errors.js";
import { injectVirtualThreadPass } from "../../src/lower/passes/inject-virtual-thread.js";
import { CTX, errorOf, expectSameResults, expectScript, parse, print, runPass } from "./helpers.js";

/** The pass's output for `before`, checked to compute what `before` computes (sequential executor). */
function inject(before: string) {
  const after = runPass(injectVirtualThreadPass, before);
  expectSameResults(after, parse(before));
  return after;
}

function loweringError(before: string): string {
  return errorOf(() => runPass(injectVirtualThreadPass, before), LoweringError).message;
}

describe("injectVirtualThread: what does not depend on the virtual thread runs once", () => {
  test("a register-tiled reduction: the k loop and the tile fetch stay once, the update is copied per virtual thread and the accumulator gets one slice each", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((32,), "float32")):
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    vthread_x = T.launch_thread("vthread.x", 2)
    acc = T.allocate([2], "float32", "local")
    acc_1 = T.Buffer((2,), data=acc, scope="local")
    for k in range(8):
        tile = T.allocate([2], "float32", "local")
        tile_1 = T.Buffer((2,), data=tile, scope="local")
        for j in range(2):
            tile_1[j] = A[k * 8 + threadIdx_x * 2 + j]
        for j in range(2):
            if k == 0:
                acc_1[j] = T.float32(0)
            acc_1[j] = acc_1[j] + tile_1[j] * B[k * 8 + vthread_x * 4 + blockIdx_x]
    for j in range(2):
        C[blockIdx_x * 16 + vthread_x * 8 + threadIdx_x * 2 + j] = acc_1[j]
`);
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((32,), "float32")):
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    acc = T.allocate([4], "float32", "local")
    acc_1 = T.Buffer((4,), data=acc, scope="local")
    for k in range(8):
        tile = T.allocate([2], "float32", "local")
        tile_1 = T.Buffer((2,), data=tile, scope="local")
        for j in range(2):
            tile_1[j] = A[k * 8 + threadIdx_x * 2 + j]
        for j in range(2):
            if k == 0:
                acc_1[j] = T.float32(0)
                acc_1[j + 2] = T.float32(0)
            acc_1[j] = acc_1[j] + tile_1[j] * B[k * 8 + blockIdx_x]
            acc_1[j + 2] = acc_1[j + 2] + tile_1[j] * B[k * 8 + blockIdx_x + 4]
    for j in range(2):
        C[blockIdx_x * 16 + threadIdx_x * 2 + j] = acc_1[j]
        C[blockIdx_x * 16 + threadIdx_x * 2 + j + 8] = acc_1[j + 2]`,
    );
  });

  test("a shared buffer stored per virtual thread gets one slice each; one only read by them keeps its size", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((200,), "float32"), C: T.Buffer((200,), "float32")):
    for i in range(100):
        vthread = T.launch_thread("vthread", 2)
        B = T.allocate([4], "float32", "shared")
        B_1 = T.Buffer((4,), data=B, scope="shared")
        S = T.allocate([4], "float32", "shared")
        S_1 = T.Buffer((4,), data=S, scope="shared")
        S_1[i % 4] = A[i]
        B_1[i % 4] = A[i * 2 + vthread]
        C[i * 2 + vthread] = B_1[i % 4] + S_1[i % 4]
`);
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((200,), "float32"), C: T.Buffer((200,), "float32")):
    for i in range(100):
        B = T.allocate([8], "float32", "shared")
        B_1 = T.Buffer((8,), data=B, scope="shared")
        S = T.allocate([4], "float32", "shared")
        S_1 = T.Buffer((4,), data=S, scope="shared")
        S_1[i % 4] = A[i]
        B_1[i % 4] = A[i * 2]
        B_1[i % 4 + 4] = A[i * 2 + 1]
        C[i * 2] = B_1[i % 4] + S_1[i % 4]
        C[i * 2 + 1] = B_1[i % 4 + 4] + S_1[i % 4]`,
    );
  });

  test("an if on an independent condition is kept once, with and without else; the statements in its branches are copied", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((200,), "float32"), C: T.Buffer((200,), "float32")):
    for i in range(100):
        vthread = T.launch_thread("vthread", 2)
        B = T.allocate([2], "float32", "local")
        B_1 = T.Buffer((2,), data=B, scope="local")
        if i == 0:
            B_1[0] = A[i * 2 + vthread]
        else:
            B_1[0] = A[i * 2 + vthread] + T.float32(1)
        if i % 2 == 0:
            B_1[1] = A[i * 2 + vthread] + T.float32(2)
        else:
            B_1[1] = T.float32(0)
        C[i * 2 + vthread] = B_1[0] + B_1[1]
`);
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((200,), "float32"), C: T.Buffer((200,), "float32")):
    for i in range(100):
        B = T.allocate([4], "float32", "local")
        B_1 = T.Buffer((4,), data=B, scope="local")
        if i == 0:
            B_1[0] = A[i * 2]
            B_1[2] = A[i * 2 + 1]
        else:
            B_1[0] = A[i * 2] + T.float32(1)
            B_1[2] = A[i * 2 + 1] + T.float32(1)
        if i % 2 == 0:
            B_1[1] = A[i * 2] + T.float32(2)
            B_1[3] = A[i * 2 + 1] + T.float32(2)
        else:
            B_1[1] = T.float32(0)
            B_1[3] = T.float32(0)
        C[i * 2] = B_1[0] + B_1[1]
        C[i * 2 + 1] = B_1[2] + B_1[3]`,
    );
  });

  test("an independent barrier stays once between the copies of the statements around it", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 2)
    vthread_x = T.launch_thread("vthread.x", 2)
    S = T.allocate([4], "float32", "shared")
    S_1 = T.Buffer((4,), data=S, scope="shared")
    S_1[vthread_x * 2 + threadIdx_x] = A[vthread_x * 2 + threadIdx_x]
    T.tvm_storage_sync("shared")
    C[vthread_x * 2 + threadIdx_x] = S_1[vthread_x * 2 + threadIdx_x] * T.float32(2)
`);
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 2)
    S = T.allocate([8], "float32", "shared")
    S_1 = T.Buffer((8,), data=S, scope="shared")
    S_1[threadIdx_x] = A[threadIdx_x]
    S_1[threadIdx_x + 6] = A[threadIdx_x + 2]
    T.tvm_storage_sync("shared")
    C[threadIdx_x] = S_1[threadIdx_x] * T.float32(2)
    C[threadIdx_x + 2] = S_1[threadIdx_x + 6] * T.float32(2)`,
    );
  });

  test("a buffer allocated outside the virtual thread keeps its size and indices", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 2)
    L = T.allocate([2], "float32", "local")
    L_1 = T.Buffer((2,), data=L, scope="local")
    vthread_x = T.launch_thread("vthread.x", 2)
    L_1[vthread_x] = A[threadIdx_x * 4 + vthread_x]
    C[threadIdx_x * 4 + vthread_x] = L_1[vthread_x] + T.float32(1)
`);
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 2)
    L = T.allocate([2], "float32", "local")
    L_1 = T.Buffer((2,), data=L, scope="local")
    L_1[0] = A[threadIdx_x * 4]
    L_1[1] = A[threadIdx_x * 4 + 1]
    C[threadIdx_x * 4] = L_1[0] + T.float32(1)
    C[threadIdx_x * 4 + 1] = L_1[1] + T.float32(1)`,
    );
  });
  test("a register zeroed and updated only under a condition on the virtual thread gets a slice per virtual thread, though no stored value mentions it", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((2,), "float32")):
    vthread_x = T.launch_thread("vthread.x", 2)
    acc = T.allocate([1], "float32", "local")
    acc_1 = T.Buffer((1,), data=acc, scope="local")
    acc_1[0] = T.float32(0)
    for k in range(4):
        if vthread_x < 1:
            acc_1[0] = acc_1[0] + A[k]
    C[vthread_x] = acc_1[0]
`);
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((2,), "float32")):
    acc = T.allocate([2], "float32", "local")
    acc_1 = T.Buffer((2,), data=acc, scope="local")
    acc_1[0] = T.float32(0)
    acc_1[1] = T.float32(0)
    for k in range(4):
        if T.bool(True):
            acc_1[0] = acc_1[0] + A[k]
        if T.bool(False):
            acc_1[1] = acc_1[1] + A[k]
    C[0] = acc_1[0]
    C[1] = acc_1[1]`,
    );
  });
});

describe("injectVirtualThread: nested virtual threads", () => {
  test("each statement is copied by the virtual threads it depends on, and each buffer sliced by them", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((16,), "float32")):
    vthread_y = T.launch_thread("vthread.y", 2)
    vthread_x = T.launch_thread("vthread.x", 2)
    ax = T.allocate([1], "float32", "local")
    ax_1 = T.Buffer((1,), data=ax, scope="local")
    by = T.allocate([1], "float32", "local")
    by_1 = T.Buffer((1,), data=by, scope="local")
    c = T.allocate([1], "float32", "local")
    c_1 = T.Buffer((1,), data=c, scope="local")
    ax_1[0] = A[vthread_x]
    by_1[0] = B[vthread_y]
    c_1[0] = ax_1[0] * by_1[0]
    C[vthread_y * 2 + vthread_x] = c_1[0]
`);
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((16,), "float32")):
    ax = T.allocate([2], "float32", "local")
    ax_1 = T.Buffer((2,), data=ax, scope="local")
    by = T.allocate([2], "float32", "local")
    by_1 = T.Buffer((2,), data=by, scope="local")
    c = T.allocate([4], "float32", "local")
    c_1 = T.Buffer((4,), data=c, scope="local")
    ax_1[0] = A[0]
    ax_1[1] = A[1]
    by_1[0] = B[0]
    by_1[1] = B[1]
    c_1[0] = ax_1[0] * by_1[0]
    c_1[2] = ax_1[0] * by_1[1]
    c_1[1] = ax_1[1] * by_1[0]
    c_1[3] = ax_1[1] * by_1[1]
    C[0] = c_1[0]
    C[2] = c_1[2]
    C[1] = c_1[1]
    C[3] = c_1[3]`,
    );
  });

  test("a virtual_thread attribute inside another of the same variable only marks its scope again", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    vthread_x = T.launch_thread("vthread.x", 2)
    C[vthread_x] = A[vthread_x]
    for i in range(1):
        T.launch_thread(vthread_x, 2)
        C[vthread_x + 2] = A[vthread_x + 2]
`);
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    C[0] = A[0]
    C[1] = A[1]
    for i in range(1):
        C[2] = A[2]
        C[3] = A[3]`,
    );
  });
});

describe("injectVirtualThread: how copies are made", () => {
  test("a vector store to a sliced buffer moves its Ramp base (one Ramp, not Ramp + Broadcast)", () => {
    const after = inject(`
@T.prim_func
def main(C: T.Buffer((16,), "int32")):
    vthread = T.launch_thread("vthread", 4)
    B = T.allocate([4], "int32", "shared")
    B_1 = T.Buffer((4,), "int32", data=B, scope="shared")
    B_1[0:4] = T.Broadcast(vthread, 4)
    C[vthread * 4:vthread * 4 + 4] = B_1[0:4]
`);
    expectScript(
      after,
      `
@T.prim_func
def main(C: T.Buffer((16,), "int32")):
    B = T.allocate([16], "int32", "shared")
    B_1 = T.Buffer((16,), "int32", data=B, scope="shared")
    B_1[0:4] = T.Broadcast(0, 4)
    B_1[4:8] = T.Broadcast(1, 4)
    B_1[8:12] = T.Broadcast(2, 4)
    B_1[12:16] = T.Broadcast(3, 4)
    C[0:4] = B_1[0:4]
    C[4:8] = B_1[4:8]
    C[8:12] = B_1[8:12]
    C[12:16] = B_1[12:16]`,
    );
  });

  test("a loop whose extent depends on the virtual thread is copied whole, inside a serial loop (loops are not unrolled)", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((2,), "float32")):
    vthread_x = T.launch_thread("vthread.x", 2)
    s = T.allocate([1], "float32", "local")
    s_1 = T.Buffer((1,), data=s, scope="local")
    s_1[0] = T.float32(0)
    for i in range(vthread_x * 2 + 2):
        s_1[0] = s_1[0] + A[i]
    C[vthread_x] = s_1[0]
`);
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((2,), "float32")):
    s = T.allocate([2], "float32", "local")
    s_1 = T.Buffer((2,), data=s, scope="local")
    s_1[0] = T.float32(0)
    s_1[1] = T.float32(0)
    for vthread_x_s in range(2):
        for i in range(vthread_x_s * 2 + 2):
            s_1[vthread_x_s] = s_1[vthread_x_s] + A[i]
    C[0] = s_1[0]
    C[1] = s_1[1]`,
    );
  });

  test("16 virtual threads or more are a serial loop rather than 16 copies", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    vthread_x = T.launch_thread("vthread.x", 16)
    C[vthread_x] = A[vthread_x] * T.float32(2)
`);
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for vthread_x_s in range(16):
        C[vthread_x_s] = A[vthread_x_s] * T.float32(2)`,
    );
  });

  test("dependence spreads through buffers whatever the textual order (a load before the dependent store in a loop)", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((2,), "float32")):
    vthread_x = T.launch_thread("vthread.x", 2)
    L = T.allocate([1], "float32", "local")
    L_1 = T.Buffer((1,), data=L, scope="local")
    M = T.allocate([1], "float32", "local")
    M_1 = T.Buffer((1,), data=M, scope="local")
    L_1[0] = T.float32(0)
    for k in range(3):
        M_1[0] = L_1[0]
        L_1[0] = A[vthread_x * 4 + k]
    C[vthread_x] = M_1[0]
`);
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((2,), "float32")):
    L = T.allocate([2], "float32", "local")
    L_1 = T.Buffer((2,), data=L, scope="local")
    M = T.allocate([2], "float32", "local")
    M_1 = T.Buffer((2,), data=M, scope="local")
    L_1[0] = T.float32(0)
    L_1[1] = T.float32(0)
    for k in range(3):
        M_1[0] = L_1[0]
        M_1[1] = L_1[1]
        L_1[0] = A[k]
        L_1[1] = A[k + 4]
    C[0] = M_1[0]
    C[1] = M_1[1]`,
    );
  });

  test("a let of a dependent value is copied with its body", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    vthread_x = T.launch_thread("vthread.x", 2)
    base: T.int32 = vthread_x * 4
    C[base] = A[base + 1]
`);
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    for vthread_x_s in range(2):
        base: T.int32 = vthread_x_s * 4
        C[base] = A[base + 1]`,
    );
  });
  test("a buffer declared with T.decl_buffer (allocation and declaration) is sliced in both", () => {
    const after = inject(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    vthread_x = T.launch_thread("vthread.x", 2)
    L = T.decl_buffer((2,), "float32", scope="local")
    L[0] = A[vthread_x]
    L[1] = A[vthread_x + 4]
    C[vthread_x] = L[0] + L[1]
`);
    expect(print(after)).toContain('L = T.decl_buffer((4,), scope="local")');
    expect(print(after)).toContain("C[1] = L[2] + L[3]");
  });
});

describe("injectVirtualThread: rejected input", () => {
  test("a barrier inside a loop whose extent depends on the virtual thread", () => {
    expect(
      loweringError(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    threadIdx_x = T.launch_thread("threadIdx.x", 2)
    vthread_x = T.launch_thread("vthread.x", 2)
    for i in range(vthread_x + 1):
        C[i * 2 + threadIdx_x] = A[i]
        T.tvm_storage_sync("shared")
`),
    ).toBe(
      "injectVirtualThread: virtual thread vthread.x: a barrier (T.tvm_storage_sync) is inside the loop over i (from 0, extent vthread_x + 1), which depends on the virtual thread, so it would run once per virtual thread, one after another in each thread, and could not synchronise the block; move the barrier out of the code that depends on vthread.x, or bind the loop to threadIdx instead",
    );
  });

  test("a barrier inside an if on the virtual thread", () => {
    expect(
      loweringError(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    vthread_x = T.launch_thread("vthread.x", 2)
    if vthread_x == 0:
        T.tvm_storage_sync("shared")
    C[vthread_x] = A[vthread_x]
`),
    ).toContain("virtual thread vthread.x: a barrier (T.tvm_storage_sync) is inside the if (vthread_x == 0), which depends on the virtual thread");
  });

  test("a virtual thread of symbolic extent", () => {
    expect(
      loweringError(`
@T.prim_func
def main(A: T.Buffer((8,), "float32"), n: T.int32):
    vthread_x = T.launch_thread("vthread.x", n)
    A[vthread_x] = T.float32(1)
`),
    ).toBe("injectVirtualThread: virtual thread vthread.x has extent n; a virtual thread needs a constant extent of at least 1");
  });

  test("a virtual thread rebound inside itself with another extent", () => {
    expect(
      loweringError(`
@T.prim_func
def main(A: T.Buffer((8,), "float32")):
    vthread_x = T.launch_thread("vthread.x", 2)
    for i in range(1):
        T.launch_thread(vthread_x, 4)
        A[vthread_x] = T.float32(1)
`),
    ).toBe("injectVirtualThread: virtual thread vthread.x is bound with extent 2 and, inside it, with extent 4");
  });

  test("a virtual_thread attribute without a thread variable", () => {
    const A = declBuffer("A", [4]);
    const func = primFunc([A.data], new Map([[A.data, A]]), attrStmt("virtual_thread", undefined, 2, bufferStore(A, floatImm(1), [0])));
    expect(errorOf(() => runPass(injectVirtualThreadPass, func), LoweringError).message).toBe(
      "injectVirtualThread: a virtual_thread attribute has no thread variable",
    );
  });

  test("a dependent allocation that is not flat", () => {
    expect(
      loweringError(`
@T.prim_func
def main(C: T.Buffer((8,), "float32")):
    vthread_x = T.launch_thread("vthread.x", 2)
    L = T.allocate([2, 2], "float32", "local")
    L_1 = T.Buffer((2, 2), data=L, scope="local")
    L_1[0, 1] = T.Cast("float32", vthread_x)
    C[vthread_x] = L_1[0, 1]
`),
    ).toBe(
      "injectVirtualThread: virtual thread vthread.x: buffer L depends on the virtual thread but is not flat (shape of 2 dimensions); run flattenBuffer first",
    );
  });

  test("a sliced allocation viewed with another dtype", () => {
    expect(
      loweringError(`
@T.prim_func
def main(C: T.Buffer((8,), "int32")):
    vthread_x = T.launch_thread("vthread.x", 2)
    L = T.allocate([2], "float32", "local")
    L_1 = T.Buffer((2,), data=L, scope="local")
    L_2 = T.Buffer((2,), "int32", data=L, scope="local")
    L_1[0] = T.Cast("float32", vthread_x)
    C[vthread_x] = L_2[0]
`),
    ).toBe(
      "injectVirtualThread: virtual thread vthread.x: buffer L_2 views the storage of L, which gets one slice per virtual thread, with another dtype or layout",
    );
  });
});

/**
 * A register-tiled reduction under one or two virtual threads, each placed outside the k loop or
 * inside it (then bound again around the write-back), with an optional per-chunk tile fetch and
 * barrier, an update that reads any subset of the virtual threads, and an optional condition on
 * the outer virtual thread around the update.
 */
interface VirtualThreadProgram {
  /** Extents of the virtual threads, outermost first (`vthread.y` then `vthread.x`). */
  readonly extents: readonly number[];
  /** Per virtual thread: bound inside the k loop (else around it). */
  readonly insideChunkLoop: readonly boolean[];
  readonly threads: number;
  readonly tile: number;
  readonly chunks: number;
  /** Allocate the accumulator inside the virtual threads (only when none is inside the k loop). */
  readonly accumulatorInside: boolean;
  readonly fetch: boolean;
  readonly barrier: boolean;
  /** Bit a: the update reads virtual thread a. */
  readonly updateReads: number;
  /** Update only where the outer virtual thread is below this (0: always). */
  readonly guard: number;
}

const programArb: fc.Arbitrary<VirtualThreadProgram> = fc.integer({ min: 1, max: 2 }).chain((axes) =>
  fc.record({
    extents: fc.array(fc.constantFrom(1, 2, 3, 4, 16), { minLength: axes, maxLength: axes }),
    insideChunkLoop: fc.array(fc.boolean(), { minLength: axes, maxLength: axes }),
    threads: fc.integer({ min: 1, max: 3 }),
    tile: fc.integer({ min: 1, max: 3 }),
    chunks: fc.integer({ min: 1, max: 3 }),
    accumulatorInside: fc.boolean(),
    fetch: fc.boolean(),
    barrier: fc.boolean(),
    updateReads: fc.nat(3),
    guard: fc.nat(3),
  }),
);

const VTHREAD_NAMES = [
  ["vthread_x", "vthread.x"],
  ["vthread_y", "vthread.y"],
] as const;

function programScript(p: VirtualThreadProgram): string {
  const axes = p.extents.map((extent, a) => ({ extent, inside: p.insideChunkLoop[a]!, name: VTHREAD_NAMES[p.extents.length - 1 - a]! }));
  const V = p.extents.reduce((x, y) => x * y, 1);
  const vt = axes.map((ax, a) => `${ax.name[0]} * ${p.extents.slice(a + 1).reduce((x, y) => x * y, 1)}`).join(" + ");
  const reads = axes.map((ax, a) => ((p.updateReads >> a) & 1 ? `${ax.name[0]} * ${p.extents.slice(a + 1).reduce((x, y) => x * y, 1)}` : "0")).join(" + ");
  const accInside = p.accumulatorInside && axes.every((ax) => !ax.inside);
  const acc = accInside ? "j" : `(${vt}) * ${p.tile} + j`;
  const { threads: T, tile: m } = p;
  const lines: string[] = [];
  const at = (depth: number, text: string) => lines.push(`${"    ".repeat(depth)}${text}`);
  const bind = (depth: number, inside: boolean) => {
    for (const ax of axes.filter((x) => x.inside === inside)) at(depth, `${ax.name[0]} = T.launch_thread("${ax.name[1]}", ${ax.extent})`);
  };
  at(1, `threadIdx_x = T.launch_thread("threadIdx.x", ${T})`);
  const allocate = (depth: number, size: number) => {
    at(depth, `acc = T.allocate([${size}], "float32", "local")`);
    at(depth, `acc_1 = T.Buffer((${size},), data=acc, scope="local")`);
  };
  if (!accInside) allocate(1, V * m);
  bind(1, false);
  if (accInside) allocate(1, m);
  at(1, `for k in range(${p.chunks}):`);
  if (p.fetch) {
    at(2, `tile = T.allocate([${m}], "float32", "local")`);
    at(2, `tile_1 = T.Buffer((${m},), data=tile, scope="local")`);
    at(2, `for j in range(${m}):`);
    at(3, `tile_1[j] = A[k * ${T * m} + threadIdx_x * ${m} + j]`);
  }
  if (p.barrier) at(2, `T.tvm_storage_sync("shared")`);
  let depth = 2;
  if (axes.some((ax) => ax.inside)) {
    at(depth, "for unit in range(1):");
    depth++;
    bind(depth, true);
  }
  const x = p.fetch ? "tile_1[j]" : `A[k * ${T * m} + threadIdx_x * ${m} + j]`;
  at(depth, `for j in range(${m}):`);
  at(depth + 1, "if k == 0:");
  at(depth + 2, `acc_1[${acc}] = T.float32(0)`);
  const guarded = p.guard > 0;
  if (guarded) at(depth + 1, `if ${axes[0]!.name[0]} < ${p.guard}:`);
  at(depth + 1 + (guarded ? 1 : 0), `acc_1[${acc}] = acc_1[${acc}] + ${x} * B[k * ${V} + ${reads}]`);
  depth = 1;
  if (axes.some((ax) => ax.inside)) {
    at(1, "for unit in range(1):");
    depth = 2;
    bind(depth, true);
  }
  at(depth, `for j in range(${m}):`);
  at(depth + 1, `C[(threadIdx_x * ${V} + ${vt}) * ${m} + j] = acc_1[${acc}]`);
  return `
@T.prim_func
def main(A: T.Buffer((${p.chunks * T * m},), "float32"), B: T.Buffer((${p.chunks * V},), "float32"), C: T.Buffer((${T * V * m},), "float32")):
${lines.join("\n")}
`;
}

describe("injectVirtualThread: property", () => {
  test("random placements of virtual threads compute what the virtual threads computed, and no virtual thread remains", () => {
    fc.assert(
      fc.property(programArb, fc.nat(99), (program, seed) => {
        const before = parse(programScript(program));
        const after = injectVirtualThreadPass.run(before, CTX);
        expect(print(after)).not.toContain('"vthread');
        expectSameResults(after, before, seed);
      }),
      { numRuns: 80 },
    );
  });
});
