/**
 * Conformance cases for the deviations from TVM found by replaying TVM's schedule tests (our own
 * workloads and expected texts, reasoned from TVM's primitives).
 */
import type { Schedule } from "../../src/index.js";
import type { ConformanceCase, ExpectedError } from "./runner.js";
import { EW_HEAD, MM, RSUM_HEAD } from "./workloads.js";

const err = (error: string, messageIncludes: string): ExpectedError => ({ error, messageIncludes });
const loopsOf = (sch: Schedule, block: string) => sch.getLoops(sch.getBlock(block));

const OPAQUE_HEAD = `@T.prim_func
def main(X: T.Buffer((8, 32), "float32"), Z: T.Buffer((8, 32), "float32")):
`;
/** An intrinsic reads X's storage through tvm_access_ptr and writes Z's (regions declared). */
const OPAQUE_BODY = (x: string, z: string) => `    for r in range(8):
        with T.block("row"):
            vr = T.axis.spatial(8, r)
            T.reads(${x}[vr, 0:32])
            T.writes(${z}[vr, 0:32])
            T.evaluate(T.call_extern("row_copy", T.tvm_access_ptr(T.type_annotation("float32"), ${z}.data, vr * 32, 32, 2), T.tvm_access_ptr(T.type_annotation("float32"), ${x}.data, vr * 32, 32, 1), dtype="int32"))
`;

const TABLE_HEAD = `@T.prim_func
def main(W: T.Buffer((64,), "float32"), X: T.Buffer((16,), "float32"), Z: T.Buffer((16,), "float32")):
`;

const FUSED_HEAD = `@T.prim_func
def main(X: T.Buffer((64, 16), "int32"), Z: T.Buffer((60, 12), "int32")):
`;

const TILED_OVER_HEAD = `@T.prim_func
def main(X: T.Buffer((32, 32), "int32"), Z: T.Buffer((30, 30), "int32")):
`;

const SYM_ROWS_HEAD = `@T.prim_func
def main(x: T.handle, z: T.handle, m: T.int32):
    X = T.match_buffer(x, (m, 4), "int32")
    Z = T.match_buffer(z, (m, 4), "int32")
`;

/** Sum of a vector into a 0-dimensional buffer. */
const VSUM = `@T.prim_func
def main(V: T.Buffer((8,), "int32"), S: T.Buffer((), "int32")):
    for k in range(8):
        with T.block("S"):
            vk = T.axis.reduce(8, k)
            with T.init():
                S[()] = 0
            S[()] = S[()] + V[vk]
`;

/** Row sums of an 8x16 matrix, k not split. */
const RSUM = `${RSUM_HEAD}    for i, k in T.grid(8, 16):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                S[vi] = 0
            S[vi] = S[vi] + R[vi, vk]
`;

const TILED_HEAD = `@T.prim_func
def main(X: T.Buffer((32, 32), "int32"), Z: T.Buffer((32, 32), "int32")):
`;
/** A scope block per 8x8 tile holding a producer and a consumer. */
const TILED = `${TILED_HEAD}    Y = T.alloc_buffer((32, 32), "int32")
    for a, b in T.grid(4, 4):
        with T.block("tile"):
            ta, tb = T.axis.remap("SS", [a, b])
            for x, y in T.grid(8, 8):
                with T.block("Y"):
                    vx = T.axis.spatial(32, ta * 8 + x)
                    vy = T.axis.spatial(32, tb * 8 + y)
                    Y[vx, vy] = X[vx, vy] + 1
            for x, y in T.grid(8, 8):
                with T.block("Z"):
                    vx = T.axis.spatial(32, ta * 8 + x)
                    vy = T.axis.spatial(32, tb * 8 + y)
                    Z[vx, vy] = Y[vx, vy] * 2
`;

const GATED_HEAD = `@T.prim_func
def main(X: T.Buffer((12, 20), "int32"), Z: T.Buffer((12, 20), "int32")):
`;
/** The access is gated by a nested block's predicate. */
const GATED = `${GATED_HEAD}    for i, j in T.grid(12, 20):
        with T.block("outer"):
            vi, vj = T.axis.remap("SS", [i, j])
            with T.block("inner"):
                T.where(vi < 8 and vj < 16)
                Z[vi, vj] = X[vi, vj] - 1
`;
/** Two nested blocks access X under different predicates: the cache must cover their union. */
const GATED_SIBLINGS = `${GATED_HEAD}    for i, j in T.grid(12, 20):
        with T.block("outer"):
            vi, vj = T.axis.remap("SS", [i, j])
            with T.block("top"):
                T.where(vi < 8)
                Z[vi, vj] = X[vi, vj] - 1
            with T.block("left"):
                T.where(vj < 16)
                Z[vi, vj] = X[vi, vj] + 1
`;

const RESHAPE_HEAD = `@T.prim_func
def main(X: T.Buffer((8, 16), "int32"), Z: T.Buffer((4, 32), "int32")):
`;
/** The consumer reads the producer's buffer through a reshape (an affine, bijective load). */
const RESHAPE = `${RESHAPE_HEAD}    Y = T.alloc_buffer((8, 16), "int32")
    for p, q in T.grid(8, 16):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
            Y[vp, vq] = X[vp, vq] * 3
    for a, b in T.grid(4, 32):
        with T.block("Z"):
            va, vb = T.axis.remap("SS", [a, b])
            Z[va, vb] = Y[(va * 32 + vb) // 16, (va * 32 + vb) % 16] + 1
`;

const SLICE_HEAD = `@T.prim_func
def main(U: T.Buffer((1, 8, 4), "int32"), W: T.Buffer((1, 6, 4), "int32")):
`;
/** The consumer takes a slice of the producer's rows; the outer iterator has extent 1. */
const SLICE = `${SLICE_HEAD}    P = T.alloc_buffer((1, 8, 4), "int32")
    for a, b, c in T.grid(1, 8, 4):
        with T.block("P"):
            va, vb, vc = T.axis.remap("SSS", [a, b, c])
            P[va, vb, vc] = U[va, vb, vc] + 1
    for a, b, c in T.grid(1, 6, 4):
        with T.block("W"):
            va, vb, vc = T.axis.remap("SSS", [a, b, c])
            W[va, vb, vc] = P[va, vb, vc]
`;

const ARGMAX_HEAD = `@T.prim_func
def main(V: T.Buffer((4, 16), "int32"), I: T.Buffer((4,), "int32"), M: T.Buffer((4,), "int32")):
`;
/** Argmax of each row (index into I, value into M): a two-buffer reduction written with lets. */
export const ARGMAX = `${ARGMAX_HEAD}    for r, k_0, k_1 in T.grid(4, 4, 4):
        with T.block("am"):
            vr = T.axis.spatial(4, r)
            vk = T.axis.reduce(16, k_0 * 4 + k_1)
            with T.init():
                I[vr] = -1
                M[vr] = -2147483648
            v_I: T.int32 = T.Select(M[vr] >= V[vr, vk], I[vr], vk)
            v_M: T.int32 = T.Select(M[vr] >= V[vr, vk], M[vr], V[vr, vk])
            I[vr] = v_I
            M[vr] = v_M
`;

const SYM_HEAD = `@T.prim_func
def main(a: T.handle, c: T.handle, n: T.int32):
    A = T.match_buffer(a, ((n + 15) // 16 * 16, 8), "int32")
    C = T.match_buffer(c, ((n + 15) // 16 * 16, 8), "int32")
`;

export const FIDELITY_CASES: ConformanceCase[] = [
  // ---------------------------------------------------------------- rfactor
  {
    // The rfactor block has no reduction iterator left: it stores the operand, without init. The
    // rfactor buffer copies S's default elem_offset, int64 for a 0-d buffer (TVM's index type).
    name: "rfactor-only-reduction-loop-zero-dim",
    primitive: "rfactor",
    before: VSUM,
    apply: (s) => {
      s.rfactor(loopsOf(s, "S")[0], 0);
    },
    scriptIncludes: [`with T.block("S_rf")`],
    expected: `@T.prim_func
def main(V: T.Buffer((8,), "int32"), S: T.Buffer((), "int32")):
    S_rf = T.alloc_buffer((8,), "int32", elem_offset=T.int64(0))
    for k in range(8):
        with T.block("S_rf"):
            vk = T.axis.spatial(8, k)
            S_rf[vk] = V[vk]
    for k in range(8):
        with T.block("S"):
            vk = T.axis.reduce(8, k)
            with T.init():
                S[()] = 0
            S[()] = S[()] + S_rf[vk]
`,
  },
  {
    name: "rfactor-only-reduction-loop-rows",
    primitive: "rfactor",
    before: RSUM,
    apply: (s) => {
      s.rfactor(loopsOf(s, "S")[1], 1);
    },
    scriptIncludes: [`with T.block("S_rf")`],
    expected: `${RSUM_HEAD}    S_rf = T.alloc_buffer((8, 16), "int32")
    for i, k in T.grid(8, 16):
        with T.block("S_rf"):
            vk = T.axis.spatial(16, k)
            vi = T.axis.spatial(8, i)
            S_rf[vi, vk] = R[vi, vk]
    for i, k in T.grid(8, 16):
        with T.block("S"):
            vk = T.axis.reduce(16, k)
            vi = T.axis.spatial(8, i)
            with T.init():
                S[vi] = 0
            S[vi] = S[vi] + S_rf[vi, vk]
`,
  },
  {
    // k split 16 = 4 x 5 rounded up: the block's predicate k_0 * 5 + k_1 < 16 bounds the fused
    // k, which the rfactor block would bind as two separate iterators.
    name: "rfactor-error-predicate",
    primitive: "rfactor",
    before: RSUM,
    apply: (s) => {
      const [, k] = loopsOf(s, "S");
      const [k0] = s.split(k, [null, 5]);
      s.rfactor(k0, 1);
    },
    expected: err("RFactorPredicateError", "bounds loops that its rfactor block would bind separately"),
  },
  // ---------------------------------------------------------------- reorder (affine bindings)
  {
    name: "reorder-error-predicate-over-separate-loops",
    primitive: "reorder",
    before: `${EW_HEAD}    for p, q in T.grid(16, 12):
        with T.block("Z"):
            T.where(p * 12 + q < 100)
            vp, vq = T.axis.remap("SS", [p, q])
            Z[vp, vq] = X[vp, vq] * 3
`,
    apply: (s) => {
      const [p, q] = loopsOf(s, "Z");
      s.reorder(q, p);
    },
    expected: err("BlockPropertyError", "required to have an affine binding"),
  },
  {
    name: "reorder-error-scaled-binding",
    primitive: "reorder",
    before: `${EW_HEAD}    for p, q in T.grid(16, 6):
        with T.block("Z"):
            vp = T.axis.spatial(16, p)
            vq = T.axis.spatial(12, q * 2)
            Z[vp, vq] = X[vp, vq] * 3
`,
    apply: (s) => {
      const [p, q] = loopsOf(s, "Z");
      s.reorder(q, p);
    },
    expected: err("BlockPropertyError", "required to have an affine binding"),
  },
  {
    // The predicate bounds p * 12 + q, which the binding of vr uses whole: affine.
    name: "reorder-predicate-matched-by-binding",
    primitive: "reorder",
    before: `${EW_HEAD}    for p, q, u in T.grid(16, 12, 2):
        with T.block("Z"):
            T.where(p * 12 + q < 100)
            vr = T.axis.spatial(192, p * 12 + q)
            vu = T.axis.spatial(2, u)
            Z[vr // 12, vr % 12] = X[vr // 12, vr % 12] * vu
`,
    apply: (s) => {
      const [, , u] = loopsOf(s, "Z");
      const [p] = loopsOf(s, "Z");
      s.reorder(u, p);
    },
    expected: `${EW_HEAD}    for u, q, p in T.grid(2, 12, 16):
        with T.block("Z"):
            T.where(p * 12 + q < 100)
            vr = T.axis.spatial(192, p * 12 + q)
            vu = T.axis.spatial(2, u)
            Z[vr // 12, vr % 12] = X[vr // 12, vr % 12] * vu
`,
  },
  {
    // Windows of 4 rows starting every 3 rows overlap: not bijective, but every row 0..15 is
    // reached, which TVM's surjective affine check accepts (fused extent 5*3 + the 1 overlapped = 16).
    name: "reorder-overlapping-windows",
    primitive: "reorder",
    before: `${EW_HEAD}    for w, r, q in T.grid(5, 4, 12):
        with T.block("Z"):
            vp = T.axis.spatial(16, w * 3 + r)
            vq = T.axis.spatial(12, q)
            Z[vp, vq] = X[vp, vq] * 3
`,
    apply: (s) => {
      const [w, r, q] = loopsOf(s, "Z");
      s.reorder(w, q, r);
    },
    expected: `${EW_HEAD}    for w, q, r in T.grid(5, 12, 4):
        with T.block("Z"):
            vp = T.axis.spatial(16, w * 3 + r)
            vq = T.axis.spatial(12, q)
            Z[vp, vq] = X[vp, vq] * 3
`,
  },
  // ---------------------------------------------------------------- fuse
  {
    // A triangular inner extent: the fused extent keeps min's operands in their written order
    // (TVM's simplifier does not move the constant to the right).
    name: "fuse-min-extent-operand-order",
    primitive: "fuse",
    before: `${EW_HEAD}    for p in range(4):
        for r, q in T.grid(T.min(3, 13 - p * 4) + 1, 12):
            with T.block("Z"):
                vp = T.axis.spatial(16, p * 4 + r)
                vq = T.axis.spatial(12, q)
                Z[vp, vq] = X[vp, vq] * 3
`,
    apply: (s) => {
      const [, r, q] = loopsOf(s, "Z");
      s.fuse(r, q);
    },
    expected: `${EW_HEAD}    for p in range(4):
        for r_q_fused in range(T.min(3, 13 - p * 4) * 12 + 12):
            with T.block("Z"):
                vp = T.axis.spatial(16, p * 4 + r_q_fused // 12)
                vq = T.axis.spatial(12, r_q_fused % 12)
                Z[vp, vq] = X[vp, vq] * 3
`,
  },
  // ---------------------------------------------------------------- cache_read / cache_write
  {
    // The copy's bounds (ta * 8 + ax0 < 32) are provable from the scope block's iterator domain:
    // no predicate, as in TVM.
    name: "cache-read-under-scope-block",
    primitive: "cache-read",
    before: TILED,
    apply: (s) => {
      s.cacheRead(s.getBlock("Z"), 0, "local");
    },
    expected: `${TILED_HEAD}    Y = T.alloc_buffer((32, 32), "int32")
    for a, b in T.grid(4, 4):
        with T.block("tile"):
            ta, tb = T.axis.remap("SS", [a, b])
            Y_local = T.alloc_buffer((8, 8), "int32", scope="local")
            for x, y in T.grid(8, 8):
                with T.block("Y"):
                    vx = T.axis.spatial(32, ta * 8 + x)
                    vy = T.axis.spatial(32, tb * 8 + y)
                    Y[vx, vy] = X[vx, vy] + 1
            for ax0, ax1 in T.grid(8, 8):
                with T.block("Y_local"):
                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                    Y_local[v0, v1] = Y[ta * 8 + v0, tb * 8 + v1]
            for x, y in T.grid(8, 8):
                with T.block("Z"):
                    vx = T.axis.spatial(32, ta * 8 + x)
                    vy = T.axis.spatial(32, tb * 8 + y)
                    Z[vx, vy] = Y_local[vx - ta * 8, vy - tb * 8] * 2
`,
  },
  {
    name: "cache-read-nested-block-predicate",
    primitive: "cache-read",
    before: GATED,
    apply: (s) => {
      s.cacheRead("outer", "X", "shared");
    },
    expected: `${GATED_HEAD}    X_shared = T.alloc_buffer((8, 16), "int32", scope="shared")
    for ax0, ax1 in T.grid(8, 16):
        with T.block("X_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            X_shared[v0, v1] = X[v0, v1]
    for i, j in T.grid(12, 20):
        with T.block("outer"):
            vi, vj = T.axis.remap("SS", [i, j])
            with T.block("inner"):
                T.where(vi < 8 and vj < 16)
                Z[vi, vj] = X_shared[vi, vj] - 1
`,
  },
  {
    name: "cache-write-nested-block-predicate",
    primitive: "cache-write",
    before: GATED,
    apply: (s) => {
      s.cacheWrite("outer", "Z", "local");
    },
    expected: `${GATED_HEAD}    Z_local = T.alloc_buffer((8, 16), "int32", scope="local")
    for i, j in T.grid(12, 20):
        with T.block("outer"):
            vi, vj = T.axis.remap("SS", [i, j])
            with T.block("inner"):
                T.where(vi < 8 and vj < 16)
                Z_local[vi, vj] = X[vi, vj] - 1
    for ax0, ax1 in T.grid(8, 16):
        with T.block("Z_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            Z[v0, v1] = Z_local[v0, v1]
`,
  },
  {
    name: "cache-read-sibling-predicates-union",
    primitive: "cache-read",
    before: GATED_SIBLINGS,
    apply: (s) => {
      s.cacheRead("outer", "X", "shared");
    },
    expected: `${GATED_HEAD}    X_shared = T.alloc_buffer((12, 20), "int32", scope="shared")
    for ax0, ax1 in T.grid(12, 20):
        with T.block("X_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            X_shared[v0, v1] = X[v0, v1]
    for i, j in T.grid(12, 20):
        with T.block("outer"):
            vi, vj = T.axis.remap("SS", [i, j])
            with T.block("top"):
                T.where(vi < 8)
                Z[vi, vj] = X_shared[vi, vj] - 1
            with T.block("left"):
                T.where(vj < 16)
                Z[vi, vj] = X_shared[vi, vj] + 1
`,
  },
  // Opaque uses of the cached buffer's storage follow the blocks' switch to the cache, as in TVM.
  {
    name: "cache-read-opaque-access-ptr",
    primitive: "cache-read",
    before: `${OPAQUE_HEAD}${OPAQUE_BODY("X", "Z")}`,
    apply: (s) => {
      s.cacheRead("row", "X", "shared");
    },
    expected: `${OPAQUE_HEAD}    X_shared = T.alloc_buffer((8, 32), "float32", scope="shared")
    for ax0, ax1 in T.grid(8, 32):
        with T.block("X_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            X_shared[v0, v1] = X[v0, v1]
${OPAQUE_BODY("X_shared", "Z")}`,
  },
  {
    name: "cache-write-opaque-access-ptr",
    primitive: "cache-write",
    before: `${OPAQUE_HEAD}${OPAQUE_BODY("X", "Z")}`,
    apply: (s) => {
      s.cacheWrite("row", "Z", "local");
    },
    expected: `${OPAQUE_HEAD}    Z_local = T.alloc_buffer((8, 32), "float32", scope="local")
${OPAQUE_BODY("X", "Z_local")}    for ax0, ax1 in T.grid(8, 32):
        with T.block("Z_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            Z[v0, v1] = Z_local[v0, v1]
`,
  },
  // ---------------------------------------------------------------- compute_inline
  {
    // The consumer's regions are recomputed after inlining; its read-only tvm_access_ptr of a
    // table stays a read of the whole table (TVM passes the buffers of the signatures seen to its
    // region detector), listed in order of appearance.
    name: "compute-inline-keeps-access-ptr-read",
    primitive: "compute-inline",
    before: `${TABLE_HEAD}    Y = T.alloc_buffer((16,), "float32")
    for i in range(16):
        with T.block("Y"):
            vi = T.axis.spatial(16, i)
            Y[vi] = X[vi] * 2.0
    for i in range(16):
        with T.block("Z"):
            vi = T.axis.spatial(16, i)
            T.reads(W[0:64], Y[vi])
            T.writes(Z[vi])
            T.evaluate(T.tvm_access_ptr(T.type_annotation("float32"), W.data, 0, 64, 1))
            Z[vi] = Y[vi] + 1.0
`,
    apply: (s) => {
      s.computeInline("Y");
    },
    expected: `${TABLE_HEAD}    for i in range(16):
        with T.block("Z"):
            vi = T.axis.spatial(16, i)
            T.reads(W[0:64], X[vi])
            T.writes(Z[vi])
            T.evaluate(T.tvm_access_ptr(T.type_annotation("float32"), W.data, 0, 64, 1))
            Z[vi] = X[vi] * 2.0 + 1.0
`,
  },
  // ---------------------------------------------------------------- reverse_compute_inline
  {
    // Symbolic extents: the load is the consumer's own iterators, so no iterator map is needed,
    // and the producer's [0, m) domain proves the consumer's bound vi < m (no predicate, as TVM).
    name: "reverse-compute-inline-symbolic-extent",
    primitive: "reverse-compute-inline",
    before: `${SYM_ROWS_HEAD}    Y = T.alloc_buffer((m, 4), "int32")
    for i, j in T.grid(m, 4):
        with T.block("Y"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi, vj] = X[vi, vj] + 3
    for i, j in T.grid(m, 4):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = Y[vi, vj] * 5
`,
    apply: (s) => {
      s.reverseComputeInline("Z");
    },
    expected: `${SYM_ROWS_HEAD}    for i, j in T.grid(m, 4):
        with T.block("Y"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = (X[vi, vj] + 3) * 5
`,
  },
  {
    // The producer over-computes on a fused loop: the consumer's bounds become its predicate,
    // simplified as TVM does: i // 16 < 60 is i < 960, tightened to i < 956 next to i % 16 < 12.
    name: "reverse-compute-inline-fused-overcompute-predicate",
    primitive: "reverse-compute-inline",
    before: `${FUSED_HEAD}    Y = T.alloc_buffer((64, 16), "int32")
    for i in range(1024):
        with T.block("Y"):
            vi = T.axis.spatial(64, i // 16)
            vj = T.axis.spatial(16, i % 16)
            Y[vi, vj] = X[vi, vj] + 1
    for i, j in T.grid(60, 12):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = Y[vi, vj] * 2
`,
    apply: (s) => {
      s.reverseComputeInline("Z");
    },
    expected: `${FUSED_HEAD}    for i in range(1024):
        with T.block("Y"):
            vi = T.axis.spatial(64, i // 16)
            vj = T.axis.spatial(16, i % 16)
            T.where(i < 956 and i % 16 < 12)
            Z[vi, vj] = (X[vi, vj] + 1) * 2
`,
  },
  {
    // A tiled producer over-computes a 30x30 consumer: the predicate is simplified by TVM's
    // pipeline on the block iterators, then bound to the loops, so it keeps TVM's order
    // (tile * 8 + offset), not the linear simplifier's (offset + tile * 8).
    name: "reverse-compute-inline-tiled-overcompute-predicate-order",
    primitive: "reverse-compute-inline",
    before: `${TILED_OVER_HEAD}    Y = T.alloc_buffer((4, 4, 8, 8), "int32")
    for a, b, c, d in T.grid(4, 4, 8, 8):
        with T.block("Y"):
            va, vb, vc, vd = T.axis.remap("SSSS", [a, b, c, d])
            Y[va, vb, vc, vd] = X[va * 8 + vc, vb * 8 + vd] + 2
    for i, j in T.grid(30, 30):
        with T.block("Z"):
            vi, vj = T.axis.remap("SS", [i, j])
            Z[vi, vj] = Y[vi // 8, vj // 8, vi % 8, vj % 8] * 3
`,
    apply: (s) => {
      s.reverseComputeInline("Z");
    },
    expected: `${TILED_OVER_HEAD}    for a, b, c, d in T.grid(4, 4, 8, 8):
        with T.block("Y"):
            va, vb, vc, vd = T.axis.remap("SSSS", [a, b, c, d])
            T.where(a * 8 + c < 30 and b * 8 + d < 30)
            Z[vc + va * 8, vd + vb * 8] = (X[va * 8 + vc, vb * 8 + vd] + 2) * 3
`,
  },
  {
    // The store indices are the inverse of the load's iterator map, built as TVM builds them:
    // the fused value (vq + vp * 16) split into digits, not simplified further.
    name: "reverse-compute-inline-affine-load",
    primitive: "reverse-compute-inline",
    before: RESHAPE,
    apply: (s) => {
      s.reverseComputeInline("Z");
    },
    expected: `${RESHAPE_HEAD}    for p, q in T.grid(8, 16):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
            Z[(vq + vp * 16) // 32, (vq + vp * 16) % 32] = X[vp, vq] * 3 + 1
`,
  },
  {
    // The unit iterator va of the consumer maps to the producer's va (TVM keeps trivial
    // iterators in the load's map), not to its constant 0.
    name: "reverse-compute-inline-unit-iterator-slice",
    primitive: "reverse-compute-inline",
    before: SLICE,
    apply: (s) => {
      s.reverseComputeInline("W");
    },
    expected: `${SLICE_HEAD}    for a, b, c in T.grid(1, 8, 4):
        with T.block("P"):
            va, vb, vc = T.axis.remap("SSS", [a, b, c])
            T.where(b < 6)
            W[va, vb, vc] = U[va, vb, vc] + 1
`,
  },
  // ---------------------------------------------------------------- compute_at
  {
    // The producer writes its rows reversed (Y[15 - vp, vq]): the rows Z needs at p come from vp = 15 - p.
    name: "compute-at-reversed-index",
    primitive: "compute-at",
    before: `${EW_HEAD}    Y = T.alloc_buffer((16, 12), "int32")
    for p, q in T.grid(16, 12):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
            Y[15 - vp, vq] = X[vp, vq] * 3
    for p, q in T.grid(16, 12):
        with T.block("Z"):
            vp, vq = T.axis.remap("SS", [p, q])
            Z[vp, vq] = Y[vp, vq] - 5
`,
    apply: (s) => {
      s.computeAt("Y", s.getLoops("Z")[0]);
    },
    expected: `${EW_HEAD}    Y = T.alloc_buffer((16, 12), "int32")
    for p in range(16):
        for ax0 in range(12):
            with T.block("Y"):
                vp = T.axis.spatial(16, 15 - p)
                vq = T.axis.spatial(12, ax0)
                Y[15 - vp, vq] = X[vp, vq] * 3
        for q in range(12):
            with T.block("Z"):
                vp, vq = T.axis.remap("SS", [p, q])
                Z[vp, vq] = Y[vp, vq] - 5
`,
  },
  {
    // Y's rows start at Z's row 6: the predicate is TVM's simplified `6 <= p` (a `>=` turned
    // round, the offset moved to the constant), not `p - 6 >= 0`.
    name: "compute-at-shifted-producer-predicate",
    primitive: "compute-at",
    before: `${EW_HEAD}    Y = T.alloc_buffer((10, 12), "int32")
    for p, q in T.grid(10, 12):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
            Y[vp, vq] = X[vp + 6, vq] * 3
    for p, q in T.grid(16, 12):
        with T.block("Z"):
            vp, vq = T.axis.remap("SS", [p, q])
            Z[vp, vq] = T.if_then_else(6 <= vp, Y[vp - 6, vq], X[vp, vq])
`,
    apply: (s) => {
      s.computeAt("Y", s.getLoops("Z")[0]);
    },
    expected: `${EW_HEAD}    Y = T.alloc_buffer((10, 12), "int32")
    for p in range(16):
        for ax0 in range(12):
            with T.block("Y"):
                vp = T.axis.spatial(10, p - 6)
                vq = T.axis.spatial(12, ax0)
                T.where(6 <= p)
                Y[vp, vq] = X[vp + 6, vq] * 3
        for q in range(12):
            with T.block("Z"):
                vp, vq = T.axis.remap("SS", [p, q])
                Z[vp, vq] = T.if_then_else(6 <= vp, Y[vp - 6, vq], X[vp, vq])
`,
  },
  {
    // Groups of 8 rows, tiles of 12: the first group of tile o is (o*12) // 8 = o + (o*4) // 8,
    // which is o for o < 2 (TVM's simplifier takes the multiple of 8 out of the coefficient).
    name: "compute-at-non-perfect-group",
    primitive: "compute-at",
    before: `@T.prim_func
def main(X: T.Buffer((24, 12), "int32"), Z: T.Buffer((24, 12), "int32")):
    B = T.alloc_buffer((3,), "int32")
    for r in range(3):
        with T.block("B"):
            vr = T.axis.spatial(3, r)
            B[vr] = vr * 5
    for o, i, q in T.grid(2, 12, 12):
        with T.block("Z"):
            vp = T.axis.spatial(24, o * 12 + i)
            vq = T.axis.spatial(12, q)
            Z[vp, vq] = X[vp, vq] + B[vp // 8]
`,
    apply: (s) => {
      s.computeAt("B", s.getLoops("Z")[0]);
    },
    expected: `@T.prim_func
def main(X: T.Buffer((24, 12), "int32"), Z: T.Buffer((24, 12), "int32")):
    B = T.alloc_buffer((3,), "int32")
    for o in range(2):
        for ax0 in range(2):
            with T.block("B"):
                vr = T.axis.spatial(3, o + ax0)
                B[vr] = vr * 5
        for i, q in T.grid(12, 12):
            with T.block("Z"):
                vp = T.axis.spatial(24, o * 12 + i)
                vq = T.axis.spatial(12, q)
                Z[vp, vq] = X[vp, vq] + B[vp // 8]
`,
  },
  // ---------------------------------------------------------------- decompose_reduction
  {
    // The expected function declares its parameters with offset_factor=1, which TVM stores for
    // the default 0: the same buffers.
    name: "decompose-explicit-default-offset-factor",
    primitive: "decompose-reduction",
    before: MM,
    apply: (s) => {
      s.decomposeReduction("C", s.getLoops("C")[2]);
    },
    scriptIncludes: [`with T.block("C_init")`, `with T.block("C_update")`],
    expected: `@T.prim_func
def main(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (16, 16), "int32", offset_factor=1)
    B = T.match_buffer(b, (16, 16), "int32", offset_factor=1)
    C = T.match_buffer(c, (16, 16), "int32", elem_offset=0, offset_factor=1)
    for i, j in T.grid(16, 16):
        with T.block("C_init"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = 0
        for k in range(16):
            with T.block("C_update"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`,
  },
  {
    // D's unit iterator v0 keeps the row the loop nest provides (i_0 * 8 + i_1 + ax0, with a
    // predicate), as TVM keeps unit iterators in the map; the predicate drops the unit loop.
    name: "reverse-compute-at-unit-iterator",
    primitive: "reverse-compute-at",
    before: `@T.prim_func
def main(U: T.Buffer((32, 32), "int32"), D: T.Buffer((1, 3), "int32")):
    P = T.alloc_buffer((32, 32), "int32")
    for i_0, j_0, i_1, j_1 in T.grid(4, 4, 8, 8):
        with T.block("P"):
            vi = T.axis.spatial(32, i_0 * 8 + i_1)
            vj = T.axis.spatial(32, j_0 * 8 + j_1)
            P[vi, vj] = U[vi, vj] * 2
    for a, b in T.grid(1, 3):
        with T.block("D"):
            v0, v1 = T.axis.remap("SS", [a, b])
            D[v0, v1] = P[v0, v1] + 1
`,
    apply: (s) => {
      s.reverseComputeAt("D", s.getLoops("P")[2], true);
    },
    expected: `@T.prim_func
def main(U: T.Buffer((32, 32), "int32"), D: T.Buffer((1, 3), "int32")):
    P = T.alloc_buffer((32, 32), "int32")
    for i_0, j_0, i_1 in T.grid(4, 4, 8):
        for j_1 in range(8):
            with T.block("P"):
                vi = T.axis.spatial(32, i_0 * 8 + i_1)
                vj = T.axis.spatial(32, j_0 * 8 + j_1)
                P[vi, vj] = U[vi, vj] * 2
        for ax0, ax1 in T.grid(1, 8):
            with T.block("D"):
                v0 = T.axis.spatial(1, i_0 * 8 + i_1 + ax0)
                v1 = T.axis.spatial(3, j_0 * 8 + ax1)
                T.where(i_0 * 8 + i_1 < 1 and j_0 * 8 + ax1 < 3)
                D[v0, v1] = P[v0, v1] + 1
`,
  },
  {
    // Under the loop n of extent 1, Y's row is fixed: its binding is the constant 0, not n (TVM's
    // simplifier replaces a variable bound to one value).
    name: "compute-at-under-unit-loop",
    primitive: "compute-at",
    before: `@T.prim_func
def main(X: T.Buffer((1, 16), "int32"), Z: T.Buffer((1, 8), "int32")):
    Y = T.alloc_buffer((1, 8), "int32")
    for n, j, k in T.grid(1, 8, 2):
        with T.block("Y"):
            vn, vj, vk = T.axis.remap("SSR", [n, j, k])
            with T.init():
                Y[vn, vj] = 0
            Y[vn, vj] = Y[vn, vj] + X[vn, vj * 2 + vk]
    for n, j in T.grid(1, 8):
        with T.block("Z"):
            vn, vj = T.axis.remap("SS", [n, j])
            Z[vn, vj] = Y[vn, vj] * 2
`,
    apply: (s) => {
      s.computeAt("Y", s.getLoops("Z")[0]);
    },
    expected: `@T.prim_func
def main(X: T.Buffer((1, 16), "int32"), Z: T.Buffer((1, 8), "int32")):
    Y = T.alloc_buffer((1, 8), "int32")
    for n in range(1):
        for ax0, ax1 in T.grid(8, 2):
            with T.block("Y"):
                vn = T.axis.spatial(1, 0)
                vj = T.axis.spatial(8, ax0)
                vk = T.axis.reduce(2, ax1)
                with T.init():
                    Y[vn, vj] = 0
                Y[vn, vj] = Y[vn, vj] + X[vn, vj * 2 + vk]
        for j in range(8):
            with T.block("Z"):
                vn, vj = T.axis.remap("SS", [n, j])
                Z[vn, vj] = Y[vn, vj] * 2
`,
  },
  {
    // Two buffers (TVM's argmax reducer): one rfactor buffer each, the combined values bound by lets.
    name: "rfactor-argmax",
    primitive: "rfactor",
    before: ARGMAX,
    apply: (s) => {
      s.rfactor(s.getLoops("am")[2], 0);
    },
    scriptIncludes: [`with T.block("am_rf")`],
    expected: `${ARGMAX_HEAD}    I_rf = T.alloc_buffer((4, 4), "int32")
    M_rf = T.alloc_buffer((4, 4), "int32")
    for r, k_0, k_1 in T.grid(4, 4, 4):
        with T.block("am_rf"):
            vk_1, vr, vk_0 = T.axis.remap("SSR", [k_1, r, k_0])
            with T.init():
                I_rf[vk_1, vr] = -1
                M_rf[vk_1, vr] = -2147483648
            v_I_rf: T.int32 = T.Select(M_rf[vk_1, vr] >= V[vr, vk_0 * 4 + vk_1], I_rf[vk_1, vr], vk_0 * 4 + vk_1)
            v_M_rf: T.int32 = T.Select(M_rf[vk_1, vr] >= V[vr, vk_0 * 4 + vk_1], M_rf[vk_1, vr], V[vr, vk_0 * 4 + vk_1])
            I_rf[vk_1, vr] = v_I_rf
            M_rf[vk_1, vr] = v_M_rf
    for r, k_1 in T.grid(4, 4):
        with T.block("am"):
            vk_1, vr = T.axis.remap("RS", [k_1, r])
            T.reads(I_rf[vk_1, vr], M_rf[vk_1, vr])
            with T.init():
                I[vr] = -1
                M[vr] = -2147483648
            v_I: T.int32 = T.Select(M[vr] >= M_rf[vk_1, vr], I[vr], I_rf[vk_1, vr])
            v_M: T.int32 = T.Select(M[vr] >= M_rf[vk_1, vr], M[vr], M_rf[vk_1, vr])
            I[vr] = v_I
            M[vr] = v_M
`,
  },
  {
    // The lets decide which buffer is which operand (TVM: the Bind order): neither the order of
    // the init stores nor that of the update stores matters.
    name: "rfactor-argmax-init-reordered",
    primitive: "rfactor",
    before: ARGMAX.replace(
      "            with T.init():\n                I[vr] = -1\n                M[vr] = -2147483648\n",
      "            T.writes(I[vr], M[vr])\n            with T.init():\n                M[vr] = -2147483648\n                I[vr] = -1\n",
    ),
    apply: (s) => {
      s.rfactor(s.getLoops("am")[2], 0);
    },
    scriptIncludes: [`with T.block("am_rf")`],
    expected: "same as rfactor-argmax",
  },
  {
    name: "rfactor-argmax-updates-reordered",
    primitive: "rfactor",
    before: ARGMAX.replace("            I[vr] = v_I\n            M[vr] = v_M\n", "            M[vr] = v_M\n            I[vr] = v_I\n"),
    apply: (s) => {
      s.rfactor(s.getLoops("am")[2], 0);
    },
    scriptIncludes: [`with T.block("am_rf")`],
    expected: "same as rfactor-argmax",
  },
  {
    // The copy's bound vt * 16 + ax0 < (n + 15) // 16 * 16 holds over vt's symbolic domain: no
    // predicate, as in TVM.
    name: "cache-read-symbolic-tile",
    primitive: "cache-read",
    before: `${SYM_HEAD}    for t in range((n + 15) // 16):
        with T.block("tile"):
            vt = T.axis.spatial((n + 15) // 16, t)
            for x, y in T.grid(16, 8):
                with T.block("C"):
                    vx = T.axis.spatial((n + 15) // 16 * 16, vt * 16 + x)
                    vy = T.axis.spatial(8, y)
                    C[vx, vy] = A[vx, vy] + 1
`,
    apply: (s) => {
      s.cacheRead("C", "A", "shared");
    },
    expected: `${SYM_HEAD}    for t in range((n + 15) // 16):
        with T.block("tile"):
            vt = T.axis.spatial((n + 15) // 16, t)
            A_shared = T.alloc_buffer((16, 8), "int32", scope="shared")
            for ax0, ax1 in T.grid(16, 8):
                with T.block("A_shared"):
                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                    A_shared[v0, v1] = A[vt * 16 + v0, v1]
            for x, y in T.grid(16, 8):
                with T.block("C"):
                    vx = T.axis.spatial((n + 15) // 16 * 16, vt * 16 + x)
                    vy = T.axis.spatial(8, y)
                    C[vx, vy] = A_shared[vx - vt * 16, vy] + 1
`,
  },
];

// Cases whose output is another case's.
for (const c of FIDELITY_CASES) {
  if (c.expected === "same as rfactor-argmax") c.expected = FIDELITY_CASES.find((o) => o.name === "rfactor-argmax")!.expected;
}
