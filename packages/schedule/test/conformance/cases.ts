/**
 * Conformance cases: our own workloads, expected outputs derived from TVM's TensorIR semantics
 * (generated names included: i_0, p_q_fused, Y_shared, ax0, v0, C_init, S_rf …).
 */
import type { Schedule } from "../../src/index.js";
import type { ConformanceCase, ExpectedError } from "./runner.js";
import { CHAIN, CHAIN_HEAD, EW, EW_HEAD, EW_Y, EW_Z, EW_Z_NEST, MM, MM_BOUND, MM_HEAD, MM_INIT, MM_UPD, MMR, RSUM_HEAD, RSUM_SPLIT } from "./workloads.js";

const err = (error: string, messageIncludes: string): ExpectedError => ({ error, messageIncludes });
const loopsOf = (sch: Schedule, block: string) => sch.getLoops(sch.getBlock(block));

const Y_ALLOC = `    Y = T.alloc_buffer((16, 12), "int32")\n`;
const Y_NEST = `    for p, q in T.grid(16, 12):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
${EW_Y}
`;

export const CASES: ConformanceCase[] = [
  // ---------------------------------------------------------------- split
  {
    name: "split-two-factors",
    primitive: "split",
    before: EW,
    apply: (s) => {
      s.split(loopsOf(s, "Y")[0]!, [4, 4]);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p_0, p_1, q in T.grid(4, 4, 12):
        with T.block("Y"):
            vp = T.axis.spatial(16, p_0 * 4 + p_1)
            vq = T.axis.spatial(12, q)
${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "split-inferred-outer",
    primitive: "split",
    before: EW,
    apply: (s) => {
      s.split(loopsOf(s, "Y")[1]!, [null, 4]);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p, q_0, q_1 in T.grid(16, 3, 4):
        with T.block("Y"):
            vp = T.axis.spatial(16, p)
            vq = T.axis.spatial(12, q_0 * 4 + q_1)
${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "split-inferred-non-divisible",
    primitive: "split",
    before: EW,
    apply: (s) => {
      s.split(loopsOf(s, "Y")[1]!, [5, null]);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p, q_0, q_1 in T.grid(16, 5, 3):
        with T.block("Y"):
            vp = T.axis.spatial(16, p)
            vq = T.axis.spatial(12, q_0 * 3 + q_1)
            T.where(q_0 * 3 + q_1 < 12)
${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "split-given-non-divisible",
    primitive: "split",
    before: EW,
    apply: (s) => {
      s.split(loopsOf(s, "Z")[1]!, [4, 4]);
    },
    expected: `${EW_HEAD}${Y_ALLOC}${Y_NEST}    for p, q_0, q_1 in T.grid(16, 4, 4):
        with T.block("Z"):
            vp = T.axis.spatial(16, p)
            vq = T.axis.spatial(12, q_0 * 4 + q_1)
            T.where(q_0 * 4 + q_1 < 12)
${EW_Z}
`,
  },
  {
    name: "split-three-way",
    primitive: "split",
    before: EW,
    apply: (s) => {
      s.split(loopsOf(s, "Y")[0]!, [2, 2, 4]);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p_0, p_1, p_2, q in T.grid(2, 2, 4, 12):
        with T.block("Y"):
            vp = T.axis.spatial(16, p_0 * 8 + p_1 * 4 + p_2)
            vq = T.axis.spatial(12, q)
${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "split-error-product-too-small",
    primitive: "split",
    before: EW,
    apply: (s) => {
      s.split(loopsOf(s, "Y")[1]!, [2, 4]);
    },
    expected: err("WrongFactorError", "product of factors"),
  },
  {
    name: "split-error-two-inferred",
    primitive: "split",
    before: EW,
    apply: (s) => {
      s.split(loopsOf(s, "Y")[1]!, [null, 2, null]);
    },
    expected: err("NotSingleInferFactorError", "only one factor"),
  },
  {
    name: "split-error-thread-bound",
    primitive: "split",
    before: EW,
    apply: (s) => {
      const [p] = loopsOf(s, "Y");
      s.bind(p!, "threadIdx.x");
      s.split(p!, [null, 4]);
    },
    expected: err("HasAnnotationOrThreadBindingError", "annotation or thread binding"),
  },
  // ---------------------------------------------------------------- fuse
  {
    name: "fuse-two",
    primitive: "fuse",
    before: EW,
    apply: (s) => {
      const [p, q] = loopsOf(s, "Y");
      s.fuse(p!, q!);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p_q_fused in range(192):
        with T.block("Y"):
            vp = T.axis.spatial(16, p_q_fused // 12)
            vq = T.axis.spatial(12, p_q_fused % 12)
${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "fuse-outer-two-of-three",
    primitive: "fuse",
    before: MM,
    apply: (s) => {
      const [i, j] = loopsOf(s, "C");
      s.fuse(i!, j!);
    },
    expected: `${MM_HEAD}    for i_j_fused, k in T.grid(256, 16):
        with T.block("C"):
            vi = T.axis.spatial(16, i_j_fused // 16)
            vj = T.axis.spatial(16, i_j_fused % 16)
            vk = T.axis.reduce(16, k)
            with T.init():
${MM_INIT}
${MM_UPD}
`,
  },
  {
    name: "fuse-three",
    primitive: "fuse",
    before: MM,
    apply: (s) => {
      const [i, j, k] = loopsOf(s, "C");
      s.fuse(i!, j!, k!);
    },
    expected: `${MM_HEAD}    for i_j_k_fused in range(4096):
        with T.block("C"):
            vi = T.axis.spatial(16, i_j_k_fused // 256)
            vj = T.axis.spatial(16, i_j_k_fused % 256 // 16)
            vk = T.axis.reduce(16, i_j_k_fused % 16)
            with T.init():
${MM_INIT}
${MM_UPD}
`,
  },
  {
    name: "fuse-after-split",
    primitive: "fuse",
    before: EW,
    apply: (s) => {
      const [p, q] = loopsOf(s, "Y");
      const [, p1] = s.split(p!, [4, 4]);
      s.fuse(p1!, q!);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p_0, p_1_q_fused in T.grid(4, 48):
        with T.block("Y"):
            vp = T.axis.spatial(16, p_0 * 4 + p_1_q_fused // 12)
            vq = T.axis.spatial(12, p_1_q_fused % 12)
${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "fuse-error-wrong-order",
    primitive: "fuse",
    before: EW,
    apply: (s) => {
      const [p, q] = loopsOf(s, "Y");
      s.fuse(q!, p!);
    },
    expected: err("OuterNotInnerParent", "not the parent"),
  },
  {
    name: "fuse-error-different-nests",
    primitive: "fuse",
    before: EW,
    apply: (s) => {
      const [p] = loopsOf(s, "Y");
      const [, q] = loopsOf(s, "Z");
      s.fuse(p!, q!);
    },
    expected: err("OuterNotInnerParent", "not the parent"),
  },
  // ---------------------------------------------------------------- reorder
  {
    name: "reorder-swap",
    primitive: "reorder",
    before: EW,
    apply: (s) => {
      const [p, q] = loopsOf(s, "Y");
      s.reorder(q!, p!);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for q, p in T.grid(12, 16):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "reorder-skips-unlisted",
    primitive: "reorder",
    before: MM,
    apply: (s) => {
      const [i, , k] = loopsOf(s, "C");
      s.reorder(k!, i!);
    },
    expected: `${MM_HEAD}    for k, j, i in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
${MM_INIT}
${MM_UPD}
`,
  },
  {
    name: "reorder-tiles",
    primitive: "reorder",
    before: MM,
    apply: (s) => {
      const [i, j] = loopsOf(s, "C");
      const [i0, i1] = s.split(i!, [4, 4]);
      const [j0, j1] = s.split(j!, [2, 8]);
      s.reorder(i0!, j0!, i1!, j1!);
    },
    expected: `${MM_HEAD}    for i_0, j_0, i_1, j_1, k in T.grid(4, 2, 4, 8, 16):
        with T.block("C"):
            vi = T.axis.spatial(16, i_0 * 4 + i_1)
            vj = T.axis.spatial(16, j_0 * 8 + j_1)
            vk = T.axis.reduce(16, k)
            with T.init():
${MM_INIT}
${MM_UPD}
`,
  },
  {
    name: "reorder-error-duplicate",
    primitive: "reorder",
    before: EW,
    apply: (s) => {
      const [p] = loopsOf(s, "Y");
      s.reorder(p!, p!);
    },
    expected: err("LoopMultiAppearanceError", "multiple times"),
  },
  {
    name: "reorder-error-not-a-chain",
    primitive: "reorder",
    before: EW,
    apply: (s) => {
      const [p] = loopsOf(s, "Y");
      const [, q] = loopsOf(s, "Z");
      s.reorder(q!, p!);
    },
    expected: err("LoopsNotAChainError", "not in a chain"),
  },
  // ---------------------------------------------------------------- loop kinds
  {
    name: "parallel-outer",
    primitive: "for-kind",
    before: EW,
    apply: (s) => {
      s.parallel(loopsOf(s, "Y")[0]!);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p in T.parallel(16):
        for q in range(12):
            with T.block("Y"):
                vp, vq = T.axis.remap("SS", [p, q])
    ${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "vectorize-inner",
    primitive: "for-kind",
    before: EW,
    apply: (s) => {
      s.vectorize(loopsOf(s, "Z")[1]!);
    },
    expected: `${EW_HEAD}${Y_ALLOC}${Y_NEST}    for p in range(16):
        for q in T.vectorized(12):
            with T.block("Z"):
                vp, vq = T.axis.remap("SS", [p, q])
    ${EW_Z}
`,
  },
  {
    name: "unroll-outer",
    primitive: "for-kind",
    before: EW,
    apply: (s) => {
      s.unroll(loopsOf(s, "Y")[0]!);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p in T.unroll(16):
        for q in range(12):
            with T.block("Y"):
                vp, vq = T.axis.remap("SS", [p, q])
    ${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "bind-block-and-thread",
    primitive: "for-kind",
    before: EW,
    apply: (s) => {
      const [p] = loopsOf(s, "Y");
      const [p0, p1] = s.split(p!, [null, 8]);
      s.bind(p0!, "blockIdx.x");
      s.bind(p1!, "threadIdx.x");
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p_0 in T.thread_binding(2, thread="blockIdx.x"):
        for p_1 in T.thread_binding(8, thread="threadIdx.x"):
            for q in range(12):
                with T.block("Y"):
                    vp = T.axis.spatial(16, p_0 * 8 + p_1)
                    vq = T.axis.spatial(12, q)
        ${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "bind-reduction-to-threadIdx",
    primitive: "for-kind",
    before: MM,
    apply: (s) => {
      s.bind(loopsOf(s, "C")[2]!, "threadIdx.x");
    },
    expected: `${MM_HEAD}    for i, j in T.grid(16, 16):
        for k in T.thread_binding(16, thread="threadIdx.x"):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
    ${MM_INIT}
    ${MM_UPD}
`,
  },
  {
    name: "parallel-error-reduction-loop",
    primitive: "for-kind",
    before: MM,
    apply: (s) => {
      s.parallel(loopsOf(s, "C")[2]!);
    },
    expected: err("WrongBlockIterTypeError", "cannot be fulfilled"),
  },
  {
    name: "vectorize-error-reduction-loop",
    primitive: "for-kind",
    before: MM,
    apply: (s) => {
      s.vectorize(loopsOf(s, "C")[2]!);
    },
    expected: err("WrongBlockIterTypeError", "cannot be fulfilled"),
  },
  {
    name: "bind-error-reduction-to-blockIdx",
    primitive: "for-kind",
    before: MM,
    apply: (s) => {
      s.bind(loopsOf(s, "C")[2]!, "blockIdx.x");
    },
    expected: err("WrongBlockIterTypeError", ""),
  },
  // ---------------------------------------------------------------- annotate
  {
    name: "annotate-loop",
    primitive: "annotate",
    before: EW,
    apply: (s) => {
      s.annotate(loopsOf(s, "Y")[0]!, "pragma_auto_unroll_max_step", 16);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p in T.serial(16, annotations={"pragma_auto_unroll_max_step": 16}):
        for q in range(12):
            with T.block("Y"):
                vp, vq = T.axis.remap("SS", [p, q])
    ${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "annotate-block-first-writer-wins",
    primitive: "annotate",
    before: EW,
    apply: (s) => {
      const y = s.getBlock("Y");
      s.annotate(y, "meta_schedule.tiling_structure", "SS");
      s.annotate(y, "meta_schedule.tiling_structure", "SSRS");
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p, q in T.grid(16, 12):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
            T.block_attr({"meta_schedule.tiling_structure": "SS"})
${EW_Y}
${EW_Z_NEST}`,
  },
  // ---------------------------------------------------------------- cache_read / cache_write
  {
    name: "cache-read-intermediate-shared",
    primitive: "cache-read",
    before: EW,
    apply: (s) => {
      s.cacheRead(s.getBlock("Z"), 0, "shared");
    },
    expected: `${EW_HEAD}${Y_ALLOC}    Y_shared = T.alloc_buffer((16, 12), "int32", scope="shared")
${Y_NEST}    for ax0, ax1 in T.grid(16, 12):
        with T.block("Y_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            Y_shared[v0, v1] = Y[v0, v1]
    for p, q in T.grid(16, 12):
        with T.block("Z"):
            vp, vq = T.axis.remap("SS", [p, q])
            Z[vp, vq] = Y_shared[vp, vq] - 5
`,
  },
  {
    name: "cache-read-input-local",
    primitive: "cache-read",
    before: EW,
    apply: (s) => {
      s.cacheRead(s.getBlock("Y"), 0, "local");
    },
    expected: `${EW_HEAD}${Y_ALLOC}    X_local = T.alloc_buffer((16, 12), "int32", scope="local")
    for ax0, ax1 in T.grid(16, 12):
        with T.block("X_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            X_local[v0, v1] = X[v0, v1]
    for p, q in T.grid(16, 12):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
            Y[vp, vq] = X_local[vp, vq] * 3
${EW_Z_NEST}`,
  },
  {
    name: "cache-read-second-operand",
    primitive: "cache-read",
    before: MM,
    apply: (s) => {
      s.cacheRead(s.getBlock("C"), 1, "shared");
    },
    expected: `${MM_HEAD}    B_shared = T.alloc_buffer((16, 16), "int32", scope="shared")
    for ax0, ax1 in T.grid(16, 16):
        with T.block("B_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            B_shared[v0, v1] = B[v0, v1]
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
${MM_INIT}
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B_shared[vk, vj]
`,
  },
  {
    name: "cache-write-intermediate-local",
    primitive: "cache-write",
    before: EW,
    apply: (s) => {
      s.cacheWrite(s.getBlock("Y"), 0, "local");
    },
    expected: `${EW_HEAD}${Y_ALLOC}    Y_local = T.alloc_buffer((16, 12), "int32", scope="local")
    for p, q in T.grid(16, 12):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
            Y_local[vp, vq] = X[vp, vq] * 3
    for ax0, ax1 in T.grid(16, 12):
        with T.block("Y_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            Y[v0, v1] = Y_local[v0, v1]
${EW_Z_NEST}`,
  },
  {
    name: "cache-write-output-shared",
    primitive: "cache-write",
    before: EW,
    apply: (s) => {
      s.cacheWrite(s.getBlock("Z"), 0, "shared");
    },
    expected: `${EW_HEAD}${Y_ALLOC}    Z_shared = T.alloc_buffer((16, 12), "int32", scope="shared")
${Y_NEST}    for p, q in T.grid(16, 12):
        with T.block("Z"):
            vp, vq = T.axis.remap("SS", [p, q])
            Z_shared[vp, vq] = Y[vp, vq] - 5
    for ax0, ax1 in T.grid(16, 12):
        with T.block("Z_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            Z[v0, v1] = Z_shared[v0, v1]
`,
  },
  {
    name: "cache-write-reduction-local",
    primitive: "cache-write",
    before: MM,
    apply: (s) => {
      s.cacheWrite(s.getBlock("C"), 0, "local");
    },
    expected: `${MM_HEAD}    C_local = T.alloc_buffer((16, 16), "int32", scope="local")
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C_local[vi, vj] = 0
            C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]
    for ax0, ax1 in T.grid(16, 16):
        with T.block("C_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            C[v0, v1] = C_local[v0, v1]
`,
  },
  {
    name: "cache-read-error-index",
    primitive: "cache-read",
    before: EW,
    apply: (s) => {
      s.cacheRead(s.getBlock("Y"), 3, "shared");
    },
    expected: err("BufferIndexOutOfRangeError", "out of range"),
  },
  {
    name: "cache-write-error-index",
    primitive: "cache-write",
    before: EW,
    apply: (s) => {
      s.cacheWrite(s.getBlock("Y"), 1, "local");
    },
    expected: err("BufferIndexOutOfRangeError", "out of range"),
  },
  {
    name: "cache-read-error-scope",
    primitive: "cache-read",
    before: EW,
    apply: (s) => {
      s.cacheRead(s.getBlock("Y"), 0, "no.such.scope" as never);
    },
    expected: err("InvalidStorageScopeError", ""),
  },
  // ---------------------------------------------------------------- set_scope / storage_align
  {
    name: "set-scope-shared",
    primitive: "set-scope",
    before: EW,
    apply: (s) => {
      s.setScope(s.getBlock("Y"), 0, "shared");
    },
    expected: EW.replace(`Y = T.alloc_buffer((16, 12), "int32")`, `Y = T.alloc_buffer((16, 12), "int32", scope="shared")`),
  },
  {
    name: "set-scope-local-in-chain",
    primitive: "set-scope",
    before: CHAIN,
    apply: (s) => {
      s.setScope(s.getBlock("Q"), 0, "local");
    },
    expected: CHAIN.replace(`Q = T.alloc_buffer((8, 8), "int32")`, `Q = T.alloc_buffer((8, 8), "int32", scope="local")`),
  },
  {
    name: "set-scope-same-scope-is-noop",
    primitive: "set-scope",
    before: EW,
    apply: (s) => {
      s.setScope(s.getBlock("Y"), 0, "global");
    },
    expected: EW,
  },
  {
    name: "set-scope-error-param",
    primitive: "set-scope",
    before: EW,
    apply: (s) => {
      s.setScope(s.getBlock("Z"), 0, "shared");
    },
    expected: err("NonAllocatedBufferError", "not allocated by a block"),
  },
  {
    name: "storage-align-annotation",
    primitive: "storage-align",
    before: EW,
    apply: (s) => {
      s.storageAlign(s.getBlock("Y"), 0, 0, 16, 1);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p, q in T.grid(16, 12):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
            T.block_attr({"buffer_dim_align": [[0, 0, 16, 1]]})
${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "storage-align-negative-axis-normalised",
    primitive: "storage-align",
    before: EW,
    apply: (s) => {
      s.storageAlign(s.getBlock("Y"), 0, -2, 32, 8);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p, q in T.grid(16, 12):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
            T.block_attr({"buffer_dim_align": [[0, 0, 32, 8]]})
${EW_Y}
${EW_Z_NEST}`,
  },
  {
    name: "storage-align-error-factor",
    primitive: "storage-align",
    before: EW,
    apply: (s) => {
      s.storageAlign(s.getBlock("Y"), 0, 0, 0, 1);
    },
    expected: err("StorageAlignInvalidFactorError", "positive number"),
  },
  {
    name: "storage-align-error-axis",
    primitive: "storage-align",
    before: EW,
    apply: (s) => {
      s.storageAlign(s.getBlock("Y"), 0, 2, 16, 0);
    },
    expected: err("StorageAlignAxisOutOfRangeError", "axis"),
  },
  {
    name: "storage-align-error-param",
    primitive: "storage-align",
    before: EW,
    apply: (s) => {
      s.storageAlign(s.getBlock("Z"), 0, 0, 16, 0);
    },
    expected: err("NonAllocatedBufferError", "not allocated by a block"),
  },
  // ---------------------------------------------------------------- compute_at / reverse_compute_at
  {
    name: "compute-at-innermost",
    primitive: "compute-at",
    before: EW,
    apply: (s) => {
      s.computeAt(s.getBlock("Y"), loopsOf(s, "Z")[1]!);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p, q in T.grid(16, 12):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
${EW_Y}
        with T.block("Z"):
            vp, vq = T.axis.remap("SS", [p, q])
${EW_Z}
`,
  },
  {
    name: "compute-at-outer",
    primitive: "compute-at",
    before: EW,
    apply: (s) => {
      s.computeAt(s.getBlock("Y"), loopsOf(s, "Z")[0]!);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p in range(16):
        for ax0 in range(12):
            with T.block("Y"):
                vp = T.axis.spatial(16, p)
                vq = T.axis.spatial(12, ax0)
    ${EW_Y}
        for q in range(12):
            with T.block("Z"):
                vp, vq = T.axis.remap("SS", [p, q])
    ${EW_Z}
`,
  },
  {
    name: "compute-at-preserve-unit-loops",
    primitive: "compute-at",
    before: EW,
    apply: (s) => {
      s.computeAt(s.getBlock("Y"), loopsOf(s, "Z")[1]!, true);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p, q in T.grid(16, 12):
        for ax0, ax1 in T.grid(1, 1):
            with T.block("Y"):
                vp = T.axis.spatial(16, p + ax0)
                vq = T.axis.spatial(12, q + ax1)
    ${EW_Y}
        with T.block("Z"):
            vp, vq = T.axis.remap("SS", [p, q])
${EW_Z}
`,
  },
  {
    name: "compute-at-shared-relaxed-over-threadIdx",
    primitive: "compute-at",
    before: MM_BOUND,
    apply: (s) => {
      const c = s.getBlock("C");
      const a = s.cacheRead(c, 0, "shared");
      s.computeAt(a, s.getLoops(c)[1]!);
    },
    expected: `${MM_HEAD}    A_shared = T.alloc_buffer((16, 16), "int32", scope="shared")
    for i_0 in T.thread_binding(4, thread="blockIdx.x"):
        for i_1 in T.thread_binding(4, thread="threadIdx.x"):
            for ax0, ax1 in T.grid(4, 16):
                with T.block("A_shared"):
                    v0 = T.axis.spatial(16, i_0 * 4 + ax0)
                    v1 = T.axis.spatial(16, ax1)
                    A_shared[v0, v1] = A[v0, v1]
            for j, k in T.grid(16, 16):
                with T.block("C"):
                    vi = T.axis.spatial(16, i_0 * 4 + i_1)
                    vj, vk = T.axis.remap("SR", [j, k])
                    with T.init():
                        C[vi, vj] = 0
                    C[vi, vj] = C[vi, vj] + A_shared[vi, vk] * B[vk, vj]
`,
  },
  {
    name: "compute-at-local-not-relaxed",
    primitive: "compute-at",
    before: MM_BOUND,
    apply: (s) => {
      const c = s.getBlock("C");
      const a = s.cacheRead(c, 0, "local");
      s.computeAt(a, s.getLoops(c)[1]!);
    },
    expected: `${MM_HEAD}    A_local = T.alloc_buffer((16, 16), "int32", scope="local")
    for i_0 in T.thread_binding(4, thread="blockIdx.x"):
        for i_1 in T.thread_binding(4, thread="threadIdx.x"):
            for ax0 in range(16):
                with T.block("A_local"):
                    v0 = T.axis.spatial(16, i_0 * 4 + i_1)
                    v1 = T.axis.spatial(16, ax0)
                    A_local[v0, v1] = A[v0, v1]
            for j, k in T.grid(16, 16):
                with T.block("C"):
                    vi = T.axis.spatial(16, i_0 * 4 + i_1)
                    vj, vk = T.axis.remap("SR", [j, k])
                    with T.init():
                        C[vi, vj] = 0
                    C[vi, vj] = C[vi, vj] + A_local[vi, vk] * B[vk, vj]
`,
  },
  {
    name: "reverse-compute-at-outer",
    primitive: "reverse-compute-at",
    before: EW,
    apply: (s) => {
      s.reverseComputeAt(s.getBlock("Z"), loopsOf(s, "Y")[0]!);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p in range(16):
        for q in range(12):
            with T.block("Y"):
                vp, vq = T.axis.remap("SS", [p, q])
    ${EW_Y}
        for ax0 in range(12):
            with T.block("Z"):
                vp = T.axis.spatial(16, p)
                vq = T.axis.spatial(12, ax0)
    ${EW_Z}
`,
  },
  {
    name: "reverse-compute-at-tile",
    primitive: "reverse-compute-at",
    before: EW,
    apply: (s) => {
      const [p] = loopsOf(s, "Y");
      const [p0] = s.split(p!, [4, 4]);
      s.reverseComputeAt(s.getBlock("Z"), p0!);
    },
    expected: `${EW_HEAD}${Y_ALLOC}    for p_0 in range(4):
        for p_1, q in T.grid(4, 12):
            with T.block("Y"):
                vp = T.axis.spatial(16, p_0 * 4 + p_1)
                vq = T.axis.spatial(12, q)
    ${EW_Y}
        for ax0, ax1 in T.grid(4, 12):
            with T.block("Z"):
                vp = T.axis.spatial(16, p_0 * 4 + ax0)
                vq = T.axis.spatial(12, ax1)
    ${EW_Z}
`,
  },
  {
    name: "reverse-compute-at-after-reduction",
    primitive: "reverse-compute-at",
    before: MMR,
    apply: (s) => {
      s.reverseComputeAt(s.getBlock("D"), loopsOf(s, "G")[1]!);
    },
    expected: `@T.prim_func
def main(A: T.Buffer((8, 8), "int32"), B: T.Buffer((8, 8), "int32"), D: T.Buffer((8, 8), "int32")):
    G = T.alloc_buffer((8, 8), "int32")
    for i, j in T.grid(8, 8):
        for k in range(8):
            with T.block("G"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    G[vi, vj] = 0
                G[vi, vj] = G[vi, vj] + A[vi, vk] * B[vk, vj]
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(G[vi, vj], 0)
`,
  },
  {
    name: "compute-at-error-output-block",
    primitive: "compute-at",
    before: EW,
    apply: (s) => {
      s.computeAt(s.getBlock("Z"), loopsOf(s, "Y")[1]!);
    },
    expected: err("OutputBlockError", "output block"),
  },
  {
    name: "compute-at-error-own-ancestor",
    primitive: "compute-at",
    before: EW,
    apply: (s) => {
      s.computeAt(s.getBlock("Y"), loopsOf(s, "Y")[1]!);
    },
    expected: err("NotInSameScopeError", "ancestor"),
  },
  {
    name: "reverse-compute-at-error-producer-not-under-loop",
    primitive: "reverse-compute-at",
    before: CHAIN,
    apply: (s) => {
      s.reverseComputeAt(s.getBlock("W"), loopsOf(s, "P")[0]!);
    },
    expected: err("NotAllRequiredBlocksAreVisitedError", "producer"),
  },
  // ---------------------------------------------------------------- compute_inline / reverse_compute_inline
  {
    name: "compute-inline-elementwise",
    primitive: "compute-inline",
    before: EW,
    apply: (s) => {
      s.computeInline(s.getBlock("Y"));
    },
    expected: `${EW_HEAD}    for p, q in T.grid(16, 12):
        with T.block("Z"):
            vp, vq = T.axis.remap("SS", [p, q])
            Z[vp, vq] = X[vp, vq] * 3 - 5
`,
  },
  {
    name: "compute-inline-twice-used",
    primitive: "compute-inline",
    before: CHAIN,
    apply: (s) => {
      s.computeInline(s.getBlock("P"));
    },
    expected: `${CHAIN_HEAD}    Q = T.alloc_buffer((8, 8), "int32")
    for a, b in T.grid(8, 8):
        with T.block("Q"):
            va, vb = T.axis.remap("SS", [a, b])
            Q[va, vb] = (U[va, vb] + 1) * (U[va, vb] + 1)
    for a, b in T.grid(8, 8):
        with T.block("W"):
            va, vb = T.axis.remap("SS", [a, b])
            W[va, vb] = Q[va, vb] - U[va, vb]
`,
  },
  {
    name: "reverse-compute-inline-elementwise",
    primitive: "reverse-compute-inline",
    before: EW,
    apply: (s) => {
      s.reverseComputeInline(s.getBlock("Z"));
    },
    expected: `${EW_HEAD}    for p, q in T.grid(16, 12):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
            Z[vp, vq] = X[vp, vq] * 3 - 5
`,
  },
  {
    name: "reverse-compute-inline-chain-tail",
    primitive: "reverse-compute-inline",
    before: CHAIN,
    apply: (s) => {
      s.reverseComputeInline(s.getBlock("W"));
    },
    expected: `${CHAIN_HEAD}    P = T.alloc_buffer((8, 8), "int32")
    for a, b in T.grid(8, 8):
        with T.block("P"):
            va, vb = T.axis.remap("SS", [a, b])
            P[va, vb] = U[va, vb] + 1
    for a, b in T.grid(8, 8):
        with T.block("Q"):
            va, vb = T.axis.remap("SS", [a, b])
            W[va, vb] = P[va, vb] * P[va, vb] - U[va, vb]
`,
  },
  {
    name: "compute-inline-error-reduction",
    primitive: "compute-inline",
    before: MMR,
    apply: (s) => {
      s.computeInline(s.getBlock("G"));
    },
    expected: err("HasInitBlock", "init"),
  },
  {
    name: "compute-inline-error-output",
    primitive: "compute-inline",
    before: EW,
    apply: (s) => {
      s.computeInline(s.getBlock("Z"));
    },
    expected: err("OutputBlockError", "output block"),
  },
  {
    name: "reverse-compute-inline-error-reduction-producer",
    primitive: "reverse-compute-inline",
    before: MMR,
    apply: (s) => {
      s.reverseComputeInline(s.getBlock("D"));
    },
    expected: err("NonSingleProducerError", "complete block"),
  },
  // ---------------------------------------------------------------- decompose_reduction
  {
    name: "decompose-at-innermost",
    primitive: "decompose-reduction",
    before: MM,
    apply: (s) => {
      const c = s.getBlock("C");
      s.decomposeReduction(c, s.getLoops(c)[2]!);
    },
    expected: `${MM_HEAD}    for i, j in T.grid(16, 16):
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
    name: "decompose-at-outermost",
    primitive: "decompose-reduction",
    before: MM,
    apply: (s) => {
      const c = s.getBlock("C");
      s.decomposeReduction(c, s.getLoops(c)[0]!);
    },
    expected: `${MM_HEAD}    for i_init, j_init in T.grid(16, 16):
        with T.block("C_init"):
            vi, vj = T.axis.remap("SS", [i_init, j_init])
            C[vi, vj] = 0
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C_update"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`,
  },
  {
    name: "decompose-at-middle",
    primitive: "decompose-reduction",
    before: MM,
    apply: (s) => {
      const c = s.getBlock("C");
      s.decomposeReduction(c, s.getLoops(c)[1]!);
    },
    expected: `${MM_HEAD}    for i in range(16):
        for j_init in range(16):
            with T.block("C_init"):
                vi, vj = T.axis.remap("SS", [i, j_init])
                C[vi, vj] = 0
        for j, k in T.grid(16, 16):
            with T.block("C_update"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`,
  },
  {
    name: "decompose-with-thread-binding",
    primitive: "decompose-reduction",
    before: MM_BOUND,
    apply: (s) => {
      const c = s.getBlock("C");
      s.decomposeReduction(c, s.getLoops(c)[2]!);
    },
    expected: `${MM_HEAD}    for i_0 in T.thread_binding(4, thread="blockIdx.x"):
        for i_1 in T.thread_binding(4, thread="threadIdx.x"):
            for j_init in range(16):
                with T.block("C_init"):
                    vi = T.axis.spatial(16, i_0 * 4 + i_1)
                    vj = T.axis.spatial(16, j_init)
                    C[vi, vj] = 0
            for j, k in T.grid(16, 16):
                with T.block("C_update"):
                    vi = T.axis.spatial(16, i_0 * 4 + i_1)
                    vj, vk = T.axis.remap("SR", [j, k])
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`,
  },
  {
    name: "decompose-error-loop-too-low",
    primitive: "decompose-reduction",
    before: RSUM_SPLIT,
    apply: (s) => {
      const b = s.getBlock("S");
      s.decomposeReduction(b, s.getLoops(b)[2]!);
    },
    expected: err("LoopHeightError", "higher than all the loops"),
  },
  {
    name: "decompose-error-not-reduction",
    primitive: "decompose-reduction",
    before: EW,
    apply: (s) => {
      const b = s.getBlock("Y");
      s.decomposeReduction(b, s.getLoops(b)[0]!);
    },
    expected: err("NotReductionBlockError", ""),
  },
  // ---------------------------------------------------------------- rfactor
  {
    name: "rfactor-inner-axis0",
    primitive: "rfactor",
    before: RSUM_SPLIT,
    apply: (s) => {
      s.rfactor(loopsOf(s, "S")[2]!, 0);
    },
    scriptIncludes: [`with T.block("S_rf")`, `S_rf = T.alloc_buffer((4, 8), "int32")`],
    expected: `${RSUM_HEAD}    S_rf = T.alloc_buffer((4, 8), "int32")
    for i, k_0, k_1 in T.grid(8, 4, 4):
        with T.block("S_rf"):
            vk_1 = T.axis.spatial(4, k_1)
            vi = T.axis.spatial(8, i)
            vk_0 = T.axis.reduce(4, k_0)
            with T.init():
                S_rf[vk_1, vi] = 0
            S_rf[vk_1, vi] = S_rf[vk_1, vi] + R[vi, vk_0 * 4 + vk_1]
    for i, k_1 in T.grid(8, 4):
        with T.block("S"):
            vk_1 = T.axis.reduce(4, k_1)
            vi = T.axis.spatial(8, i)
            with T.init():
                S[vi] = 0
            S[vi] = S[vi] + S_rf[vk_1, vi]
`,
  },
  {
    name: "rfactor-outer-axis1",
    primitive: "rfactor",
    before: RSUM_SPLIT,
    apply: (s) => {
      s.rfactor(loopsOf(s, "S")[1]!, 1);
    },
    scriptIncludes: [`with T.block("S_rf")`, `S_rf = T.alloc_buffer((8, 4), "int32")`],
    expected: `${RSUM_HEAD}    S_rf = T.alloc_buffer((8, 4), "int32")
    for i, k_0, k_1 in T.grid(8, 4, 4):
        with T.block("S_rf"):
            vk_0 = T.axis.spatial(4, k_0)
            vi = T.axis.spatial(8, i)
            vk_1 = T.axis.reduce(4, k_1)
            with T.init():
                S_rf[vi, vk_0] = 0
            S_rf[vi, vk_0] = S_rf[vi, vk_0] + R[vi, vk_0 * 4 + vk_1]
    for i, k_0 in T.grid(8, 4):
        with T.block("S"):
            vk_0 = T.axis.reduce(4, k_0)
            vi = T.axis.spatial(8, i)
            with T.init():
                S[vi] = 0
            S[vi] = S[vi] + S_rf[vi, vk_0]
`,
  },
  {
    name: "rfactor-error-factor-axis",
    primitive: "rfactor",
    before: RSUM_SPLIT,
    apply: (s) => {
      s.rfactor(loopsOf(s, "S")[2]!, 3);
    },
    expected: err("FactorAxisOutOfRangeError", "factor_axis"),
  },
  {
    name: "rfactor-error-spatial-loop",
    primitive: "rfactor",
    before: RSUM_SPLIT,
    apply: (s) => {
      s.rfactor(loopsOf(s, "S")[0]!, 0);
    },
    expected: err("LoopPropertyError", "data parallel"),
  },
  {
    name: "rfactor-error-not-serial",
    primitive: "rfactor",
    before: RSUM_SPLIT,
    apply: (s) => {
      const l = loopsOf(s, "S")[2]!;
      s.unroll(l);
      s.rfactor(l, 0);
    },
    expected: err("NotSerialLoopKindError", "serial"),
  },
];
