import { type PrimFunc, type Stmt, forEachStmt } from "@tessera/ir";
import { describe, expect, test } from "vitest";
import { LoweringError } from "../../src/lower/errors.js";
import { PASSES_FRONT, simplifyPass } from "../../src/lower/passes/index.js";
import { threadSyncPass } from "../../src/lower/passes/thread-sync.js";
import { loweredWindowSumScript, scheduleCorpus } from "@tessera/corpus";
import { CTX, errorOf, expectScript, parse, runPass } from "./helpers.js";

function barrierCount(root: PrimFunc | Stmt): number {
  let n = 0;
  forEachStmt(root.kind === "PrimFunc" ? root.body : root, (s) => {
    if (s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === "tvm_storage_sync") n++;
  });
  return n;
}

/** The window sum before threadSync: no barrier yet. */
const WINDOW_SUM = loweredWindowSumScript({ sync: false });

/** A kernel with one 4-thread block and a shared buffer S of 8 floats, around `body`. */
function kernel(body: string, threads = `threadIdx_x = T.launch_thread("threadIdx.x", 4)`): string {
  const indented = body.replace(/^\n+/, "").replace(/^/gm, "    ");
  return `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "main"})
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    S = T.allocate([8], "float32", "shared")
    S_1 = T.Buffer((8,), data=S, scope="shared")
    ${threads}
${indented}
`;
}

describe("threadSync", () => {
  test("window sum: one barrier between the shared fill and the reads of neighbours", () => {
    const after = runPass(threadSyncPass, WINDOW_SUM);
    // Exactly where the hand-lowered kernel has it.
    expectScript(after, loweredWindowSumScript({ sync: true }));
  });

  test("window sum from the corpus (after the front passes): one barrier", () => {
    const entry = scheduleCorpus().find((e) => e.name === "window_sum")!;
    let f = entry.build().func;
    for (const p of [...PASSES_FRONT, simplifyPass]) f = p.run(f, CTX);
    expect(barrierCount(threadSyncPass.run(f, CTX))).toBe(1);
  });

  test("tiled matmul k loop: a barrier before the shared fill (previous iteration's reads) and one after it", () => {
    const before = `
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((4,), "float32")):
    T.func_attr({"global_symbol": "matmul"})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)
    A_shared = T.allocate([4], "float32", "shared")
    A_shared_1 = T.Buffer((4,), data=A_shared, scope="shared")
    acc = T.allocate([1], "float32", "local")
    acc_1 = T.Buffer((1,), data=acc, scope="local")
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    acc_1[0] = T.float32(0)
    for k_0 in range(4):
        A_shared_1[threadIdx_x] = A[k_0 * 4 + threadIdx_x]
        for k_1 in range(4):
            acc_1[0] = acc_1[0] + A_shared_1[k_1] * B[(k_0 * 4 + k_1) % 16]
    C[threadIdx_x] = acc_1[0]`;
    expectScript(
      runPass(threadSyncPass, before),
      `
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((4,), "float32")):
    T.func_attr({"global_symbol": "matmul"})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)
    A_shared = T.allocate([4], "float32", "shared")
    A_shared_1 = T.Buffer((4,), data=A_shared, scope="shared")
    acc = T.allocate([1], "float32", "local")
    acc_1 = T.Buffer((1,), data=acc, scope="local")
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    acc_1[0] = T.float32(0)
    for k_0 in range(4):
        T.tvm_storage_sync("shared")
        A_shared_1[threadIdx_x] = A[k_0 * 4 + threadIdx_x]
        T.tvm_storage_sync("shared")
        for k_1 in range(4):
            acc_1[0] = acc_1[0] + A_shared_1[k_1] * B[(k_0 * 4 + k_1) % 16]
    C[threadIdx_x] = acc_1[0]`,
    );
  });

  test("no barrier when each thread reads only the element it wrote", () => {
    const f = parse(
      kernel(`
S_1[threadIdx_x] = A[blockIdx_x * 4 + threadIdx_x]
B[blockIdx_x * 4 + threadIdx_x] = S_1[threadIdx_x] * T.float32(2)
S_1[threadIdx_x] = S_1[threadIdx_x] + T.float32(1)`),
    );
    expect(threadSyncPass.run(f, CTX)).toBe(f);
  });

  test("an index that ignores one thread dimension is shared between threads: barrier", () => {
    const f = parse(
      kernel(
        `
S_1[threadIdx_x] = A[threadIdx_y * 4 + threadIdx_x]
B[threadIdx_y * 4 + threadIdx_x] = S_1[threadIdx_x]`,
        `threadIdx_x = T.launch_thread("threadIdx.x", 4)
    threadIdx_y = T.launch_thread("threadIdx.y", 2)`,
      ),
    );
    expect(barrierCount(threadSyncPass.run(f, CTX))).toBe(1);
  });

  test("loop-carried write after read: one barrier at the start of the body", () => {
    const after = runPass(
      threadSyncPass,
      kernel(`
for i in range(4):
    S_1[threadIdx_x] = A[i * 4 + threadIdx_x]
    T.tvm_storage_sync("shared")
    B[i * 4 + threadIdx_x] = S_1[3 - threadIdx_x]`),
    );
    expectScript(
      after,
      kernel(`
for i in range(4):
    T.tvm_storage_sync("shared")
    S_1[threadIdx_x] = A[i * 4 + threadIdx_x]
    T.tvm_storage_sync("shared")
    B[i * 4 + threadIdx_x] = S_1[3 - threadIdx_x]`),
    );
  });

  test("a condition uniform across the block (blockIdx only) may hold a barrier", () => {
    const after = runPass(
      threadSyncPass,
      kernel(`
if blockIdx_x == 0:
    S_1[threadIdx_x] = A[threadIdx_x]
    B[threadIdx_x] = S_1[3 - threadIdx_x]`),
    );
    expectScript(
      after,
      kernel(`
if blockIdx_x == 0:
    S_1[threadIdx_x] = A[threadIdx_x]
    T.tvm_storage_sync("shared")
    B[threadIdx_x] = S_1[3 - threadIdx_x]`),
    );
  });

  test("a barrier in only one branch of an if does not synchronise the other: a barrier goes before the if", () => {
    const after = runPass(
      threadSyncPass,
      kernel(`
S_1[threadIdx_x] = A[threadIdx_x]
if blockIdx_x == 0:
    T.tvm_storage_sync("shared")
    B[threadIdx_x] = S_1[3 - threadIdx_x]
else:
    B[threadIdx_x] = S_1[3 - threadIdx_x] * T.float32(2)`),
    );
    expectScript(
      after,
      kernel(`
S_1[threadIdx_x] = A[threadIdx_x]
T.tvm_storage_sync("shared")
if blockIdx_x == 0:
    T.tvm_storage_sync("shared")
    B[threadIdx_x] = S_1[3 - threadIdx_x]
else:
    B[threadIdx_x] = S_1[3 - threadIdx_x] * T.float32(2)`),
    );
  });

  test("a loop of one iteration has no loop-carried conflict", () => {
    const f = parse(
      kernel(`
for i in range(1):
    B[threadIdx_x] = S_1[3 - threadIdx_x]
    T.tvm_storage_sync("shared")
    S_1[threadIdx_x] = A[threadIdx_x]`),
    );
    expect(threadSyncPass.run(f, CTX)).toBe(f);
  });

  test("local and global buffers never need barriers", () => {
    const f = parse(
      kernel(`
B[threadIdx_x] = A[threadIdx_x]
A[threadIdx_x + 4] = B[3 - threadIdx_x]`),
    );
    expect(threadSyncPass.run(f, CTX)).toBe(f);
  });

  describe("versions of a multi-versioned buffer (software pipelining)", () => {
    test("a write to the next version and a read of the current one do not conflict: one barrier per iteration", () => {
      expectScript(
        runPass(
          threadSyncPass,
          kernel(`
for k in range(4):
    S_1[(k + 1) % 2 * 4 + threadIdx_x] = A[k * 4 + threadIdx_x]
    B[k * 4 + threadIdx_x] = S_1[k % 2 * 4 + 3 - threadIdx_x]`),
        ),
        kernel(`
for k in range(4):
    T.tvm_storage_sync("shared")
    S_1[(k + 1) % 2 * 4 + threadIdx_x] = A[k * 4 + threadIdx_x]
    B[k * 4 + threadIdx_x] = S_1[k % 2 * 4 + 3 - threadIdx_x]`),
      );
    });

    test("the same version written and read by different threads still needs its barrier", () => {
      expectScript(
        runPass(
          threadSyncPass,
          kernel(`
for k in range(4):
    S_1[k % 2 * 4 + threadIdx_x] = A[k * 4 + threadIdx_x]
    B[k * 4 + threadIdx_x] = S_1[k % 2 * 4 + 3 - threadIdx_x]`),
        ),
        kernel(`
for k in range(4):
    T.tvm_storage_sync("shared")
    S_1[k % 2 * 4 + threadIdx_x] = A[k * 4 + threadIdx_x]
    T.tvm_storage_sync("shared")
    B[k * 4 + threadIdx_x] = S_1[k % 2 * 4 + 3 - threadIdx_x]`),
      );
    });

    test("a version term whose remainder spills past the version stride proves nothing", () => {
      // Thread 3 writes S[(k + 1) % 2 * 2 + 3], which is S[k % 2 * 2 + 1] for thread 1 when k is odd.
      const f = parse(
        kernel(`
for k in range(4):
    S_1[(k + 1) % 2 * 2 + threadIdx_x] = A[k * 4 + threadIdx_x]
    B[k * 4 + threadIdx_x] = S_1[k % 2 * 2 + 3 - threadIdx_x]`),
      );
      expect(barrierCount(threadSyncPass.run(f, CTX))).toBe(2);
    });
  });

  describe("accesses summarised over a loop keep their index", () => {
    test("a loop filling S[0:4] and a loop reading S[4:8] do not conflict", () => {
      const f = parse(
        kernel(`
for j in range(2):
    S_1[j * 2 + threadIdx_x % 2] = A[j * 4 + threadIdx_x]
for j in range(2):
    B[j * 4 + threadIdx_x] = S_1[j * 2 + threadIdx_x % 2 + 4]`),
      );
      expect(threadSyncPass.run(f, CTX)).toBe(f);
    });

    test("overlapping summaries conflict, also when their indices print alike", () => {
      const f = parse(
        kernel(`
for j in range(2):
    S_1[threadIdx_x + j] = A[j * 4 + threadIdx_x]
for j in range(2):
    B[j * 4 + threadIdx_x] = S_1[threadIdx_x + j]`),
      );
      expect(barrierCount(threadSyncPass.run(f, CTX))).toBe(1);
    });
  });

  describe("asynchronous copies", () => {
    const copyThenWait = `
with T.attr(None, "async_commit_queue_scope", 0):
    with T.attr(None, "async_scope", 1):
        S_1[threadIdx_x] = A[threadIdx_x]
with T.attr(None, "async_wait_queue_scope", 0):
    with T.attr(None, "async_wait_inflight_count", 0):
        B[threadIdx_x] = S_1[3 - threadIdx_x]`;

    test("a barrier follows every wait (TVM's ThreadSyncAfterWaitQueueInserter); the planner adds none before it", () => {
      expectScript(
        runPass(threadSyncPass, kernel(copyThenWait)),
        kernel(`
with T.attr(None, "async_commit_queue_scope", 0):
    with T.attr(None, "async_scope", 1):
        S_1[threadIdx_x] = A[threadIdx_x]
with T.attr(None, "async_wait_queue_scope", 0):
    with T.attr(None, "async_wait_inflight_count", 0):
        T.tvm_storage_sync("shared")
        B[threadIdx_x] = S_1[3 - threadIdx_x]`),
      );
    });

    test("a wait whose body already starts with a barrier gets no second one", () => {
      const once = runPass(threadSyncPass, kernel(copyThenWait));
      expect(threadSyncPass.run(once, CTX)).toBe(once);
    });

    test("a wait inside a thread-dependent condition, or without its in-flight count", () => {
      const divergent = kernel(`
if threadIdx_x < 2:
    with T.attr(None, "async_wait_queue_scope", 0):
        with T.attr(None, "async_wait_inflight_count", 0):
            B[threadIdx_x] = A[threadIdx_x]`);
      expect(errorOf(() => runPass(threadSyncPass, divergent), LoweringError).message).toContain(
        "an asynchronous copy wait (async_wait_queue_scope) needs a barrier after it, but it is inside if threadIdx_x < 2",
      );
      const bare = kernel(`
with T.attr(None, "async_wait_queue_scope", 0):
    B[threadIdx_x] = A[threadIdx_x]`);
      expect(errorOf(() => runPass(threadSyncPass, bare), LoweringError).message).toBe(
        "threadSync: async_wait_queue_scope must enclose async_wait_inflight_count directly",
      );
    });
  });

  describe("errors", () => {
    test("a barrier needed inside a thread-dependent condition", () => {
      const err = errorOf(
        () =>
          runPass(
            threadSyncPass,
            kernel(`
if threadIdx_x < 2:
    S_1[threadIdx_x] = A[threadIdx_x]
    B[threadIdx_x] = S_1[threadIdx_x + 1]`),
          ),
        LoweringError,
      );
      expect(err.message).toMatch(
        /^threadSync: shared buffer S needs a barrier \(read after write by another thread\) inside if threadIdx_x < 2, a condition that depends on the thread index; not every thread of the block reaches that point/,
      );
    });

    test("a barrier needed inside a loop whose trip count depends on the thread index", () => {
      const err = errorOf(
        () =>
          runPass(
            threadSyncPass,
            kernel(`
for i in range(threadIdx_x):
    S_1[threadIdx_x] = A[i]
    B[i] = S_1[3 - threadIdx_x]`),
          ),
        LoweringError,
      );
      expect(err.message).toContain("inside loop i, whose trip count (threadIdx_x) depends on the thread index");
    });

    test("a loop-carried barrier needed inside a thread-dependent condition", () => {
      const err = errorOf(
        () =>
          runPass(
            threadSyncPass,
            kernel(`
if threadIdx_x < 3:
    for i in range(4):
        S_1[threadIdx_x] = A[i * 4 + threadIdx_x]
        T.tvm_storage_sync("shared")
        B[i * 4 + threadIdx_x] = S_1[3 - threadIdx_x]`),
          ),
        LoweringError,
      );
      expect(err.message).toContain("write after read by another thread in the next iteration of loop i");
    });
  });

  describe("pointers into shared memory (tvm_access_ptr)", () => {
    // A WMMA fragment load reads S through a pointer: the fill by other threads must be waited for.
    const load = (mask: number) => `
S_1[threadIdx_x] = A[threadIdx_x]
T.tvm_load_matrix_sync(F, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float32"), S, 0, 8, ${mask}), 4, "row_major")
`;
    const withFragment = (body: string) => kernel(`F = T.allocate([256], "float32", "wmma.matrix_a")\n${body}`);

    test("a read through a pointer after a store by other threads gets a barrier", () => {
      expect(barrierCount(runPass(threadSyncPass, withFragment(load(1))))).toBe(1);
    });

    test("a write through a pointer before a read gets a barrier too", () => {
      const body = `T.tvm_store_matrix_sync(F, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float32"), S, 0, 8, 2), 4, "row_major")\nB[threadIdx_x] = S_1[(threadIdx_x + 1) % 4]`;
      expect(barrierCount(runPass(threadSyncPass, withFragment(body)))).toBe(1);
    });

    test("a pointer covers [offset, offset + extent) as in TVM: a store outside that range needs no barrier, one inside it does", () => {
      // Threads 0–3 store S[c + threadIdx_x]; the pointer reads S[4:8].
      const body = (c: number, ptr = 'T.tvm_access_ptr(T.type_annotation("float32"), S, 4, 4, 1)') =>
        `S_1[threadIdx_x + ${c}] = A[threadIdx_x]\nT.tvm_load_matrix_sync(F, 16, 16, 16, 0, ${ptr}, 4, "row_major")`;
      expect(barrierCount(runPass(threadSyncPass, withFragment(body(0))))).toBe(0);
      expect(barrierCount(runPass(threadSyncPass, withFragment(body(1))))).toBe(1);
      // An extent that is not a constant, or a pointer of another element type, covers the whole buffer.
      expect(barrierCount(runPass(threadSyncPass, withFragment(body(0, 'T.tvm_access_ptr(T.type_annotation("float32"), S, 4, blockIdx_x + 4, 1)'))))).toBe(1);
      expect(barrierCount(runPass(threadSyncPass, withFragment(body(0, 'T.tvm_access_ptr(T.type_annotation("float16"), S, 8, 8, 1)'))))).toBe(1);
    });

    test("a pointer to version k % 2 of a double buffer and a store to version (k + 1) % 2 of the same iteration need no barrier between them", () => {
      const loop = (next: string) =>
        withFragment(`
for k in range(4):
    T.tvm_load_matrix_sync(F, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float32"), S, k % 2 * 4, 4, 1), 4, "row_major")
    S_1[${next} % 2 * 4 + threadIdx_x] = A[k * 4 + threadIdx_x]`);
      // The next iteration's read of what the store wrote: one barrier, at the top of the body.
      const other = runPass(threadSyncPass, loop("(k + 1)"));
      expect(barrierCount(other)).toBe(1);
      // The store overwriting the version just read needs one between them too.
      expect(barrierCount(runPass(threadSyncPass, loop("k")))).toBe(2);
    });

    test("a pointer into global memory needs no barrier", () => {
      const body = `S_1[threadIdx_x] = A[threadIdx_x]\nT.tvm_store_matrix_sync(F, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float32"), B.data, 0, 8, 2), 4, "row_major")`;
      expect(barrierCount(runPass(threadSyncPass, withFragment(body)))).toBe(0);
    });
  });
});
