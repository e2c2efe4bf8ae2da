/**
 * The mutation table: single-mistake edits of the instructor solution, each with the ONE check
 * that must fail and what its feedback must say. It is the specification of the feedback (see
 * docs/architecture/autograder.md, "The mutation table"): one mistake costs the points of the
 * check that names it, and no other check of any task loses points. mutations.test.ts grades each
 * entry structure-only; an edit's text must occur exactly once in the solution file, so a change
 * of the solution cannot silently turn an entry into an unchanged copy.
 */
import { type Edit, insertAfter, insertBefore, lines, remove, replace } from "./submission-cases.js";

export interface Mutation {
  /** Kebab-case, unique; names the mistake. */
  readonly name: string;
  /** The solution file the edits apply to (the other one stays the solution's). */
  readonly file: "gemm_relu_add.ts" | "trace_submission.ts";
  readonly edits: readonly Edit[];
  /** The one check that fails: task id and check id. */
  readonly fails: { readonly task: string; readonly check: string };
  /** What the failed check's feedback (or, for a task that left no schedule, its error) must say. */
  readonly feedback: RegExp;
}

const T1 = "shared-memory-tiling";
const T2 = "register-tiling";
const T3 = "cooperative-fetching";
const T4 = "write-cache";
const T5 = "epilogue-fusion";
const P2 = "auto-tuning";

const gemm = (name: string, fails: [string, string], feedback: RegExp, ...edits: Edit[]): Mutation => ({
  name,
  file: "gemm_relu_add.ts",
  edits,
  fails: { task: fails[0], check: fails[1] },
  feedback,
});
const trace = (name: string, feedback: RegExp, ...edits: Edit[]): Mutation => ({
  name,
  file: "trace_submission.ts",
  edits,
  fails: { task: P2, check: "trace-replays" },
  feedback,
});

// Solution lines the entries edit.
const SPLIT_I = "sch.split(i, [null, tileX])";
const SPLIT_J = "sch.split(j, [null, tileY])";
const SPLIT_K = "sch.split(k, [null, tileK])";
const REORDER_1 = "sch.reorder(blockX, blockY, kOuter, innerX, innerY, kInner);";
const BIND_BX = lines('  sch.bind(blockX, "blockIdx.x");');
const BIND_BY = lines('  sch.bind(blockY, "blockIdx.y");');
const CACHE_A_SHARED = 'const aShared = sch.cacheRead(gemm, 0, "shared");';
const CACHE_B_SHARED = 'const bShared = sch.cacheRead(gemm, 1, "shared");';
const AT_A_SHARED = lines("  sch.computeAt(aShared, kOuter);");
const AT_B_SHARED = lines("  sch.computeAt(bShared, kOuter);");
const SPLIT_TX = "sch.split(innerX, [null, threadTileX])";
const SPLIT_TY = "sch.split(innerY, [null, threadTileY])";
const SPLIT_TK = "sch.split(kInner, [null, threadTileK])";
const REORDER_2 = "sch.reorder(threadX, threadY, kChunk, kStep, regX, regY);";
/** Task 2's binds, after its reorder (task 3's binds are the same calls, indented further). */
const BIND_T = (x: string, y: string): string =>
  `${REORDER_2}\n${x === "" ? "" : lines(`  sch.bind(threadX, "${x}");`)}${y === "" ? "" : lines(`  sch.bind(threadY, "${y}");`)}`;
const CACHE_A_LOCAL = 'const aLocal = sch.cacheRead(gemm, 0, "local");';
const AT_A_LOCAL = lines("  sch.computeAt(aLocal, kStep);");
const AT_B_LOCAL = lines("  sch.computeAt(bLocal, kStep);");
const FETCH_LOOP = "for (const stage of [aShared, bShared]) {";
const FETCH_LOOPS = "const [row, col] = sch.getLoops(stage).slice(-2) as [LoopRV, LoopRV];";
const FETCH_FUSE = "const fused = sch.fuse(row, col);";
const FETCH_SPLIT = "sch.split(fused, [null, threadExtentX, threadExtentY])";
const FETCH_BIND_Y = lines('    sch.bind(threadY, "threadIdx.y");', "  }");
const CACHE_WRITE = 'sch.cacheWrite(gemm, 0, "local")';
const FIND_THREAD_Y = 'sch.get(loop).threadTag === "threadIdx.y"';
const REVERSE_AT = lines("  sch.reverseComputeAt(writeBack, threadY);");
const INLINE_RELU = lines('  sch.reverseComputeInline(sch.getBlock("relu"));');
/** The last line of epilogueFusion (naiveSchedule has the same call). */
const INLINE_ADD = `${lines('  sch.reverseComputeInline(sch.getBlock("add"));', "}", "")}/** The complete manual schedule`;
const APPLY_TRACE = lines("export function applyTrace(sch: Schedule): void {");

/** The first thread-bound loop of gemm with `tag`, as student code finds it. */
const gemmLoopBound = (tag: string): string => `sch.getLoops(sch.getBlock("gemm")).find((l) => sch.get(l).threadTag === "${tag}")!`;

export const MUTATIONS: readonly Mutation[] = [
  // ---- task 1: shared-memory tiling -------------------------------------------------------------
  gemm("t1-split-i-by-32", [T1, "split-i-by-tile-x"], /the i loop of "gemm" is split into tiles of 32, not 64/, replace(SPLIT_I, "sch.split(i, [null, 32])")),
  gemm(
    "t1-split-j-by-128",
    [T1, "split-j-by-tile-y"],
    /the j loop of "gemm" is split into tiles of 128, not 64/,
    replace(SPLIT_J, "sch.split(j, [null, 128])"),
  ),
  gemm("t1-split-k-by-32", [T1, "split-k-by-tile-k"], /the k loop of "gemm" is split into tiles of 32, not 64/, replace(SPLIT_K, "sch.split(k, [null, 32])")),
  gemm("t1-split-i-factors-swapped", [T1, "split-i-by-tile-x"], /split into tiles of 32, not 64/, replace(SPLIT_I, "sch.split(i, [tileX, null])")),
  gemm("t1-missing-bind-x", [T1, "block-loops-bound"], /the block loop over i \(i_0, extent 32\) is not bound: bind it to blockIdx\.x/, remove(BIND_BX)),
  gemm("t1-missing-bind-y", [T1, "block-loops-bound"], /the block loop over j \(j_0, extent 32\) is not bound: bind it to blockIdx\.y/, remove(BIND_BY)),
  gemm(
    "t1-block-binds-swapped",
    [T1, "block-loops-bound"],
    /blockIdx\.x and blockIdx\.y are swapped/,
    replace(BIND_BX + BIND_BY, lines('  sch.bind(blockX, "blockIdx.y");', '  sch.bind(blockY, "blockIdx.x");')),
  ),
  gemm(
    "t1-bind-x-to-a-thread",
    [T1, "block-loops-bound"],
    /should be bound to blockIdx\.x, not threadIdx\.x/,
    replace(BIND_BX, lines('  sch.bind(blockX, "threadIdx.x");')),
  ),
  // The tester's extra bind of the tile-k loop: task 2's split of that bound loop throws on the
  // student's schedule, so task 2 is graded on the solution's task 1 (it costs task 1's check only).
  gemm(
    "t1-extra-bind-tile-k",
    [T1, "block-loops-bound"],
    /bound to threadIdx\.x\) is bound too/,
    insertAfter(BIND_BY, lines('  sch.bind(kInner, "threadIdx.x");')),
  ),
  gemm(
    "t1-extra-bind-k-chunk",
    [T1, "block-loops-bound"],
    /k_0 \(extent 32, bound to threadIdx\.z\) is bound too/,
    insertAfter(BIND_BY, lines('  sch.bind(kOuter, "threadIdx.z");')),
  ),
  gemm(
    "t1-k-chunk-outermost",
    [T1, "block-loops-reordered"],
    /the block loop over i \(i_0, .*\) should be outside the k-chunk loop \(k_0, extent 32\)/,
    replace(REORDER_1, "sch.reorder(kOuter, blockX, blockY, innerX, innerY, kInner);"),
  ),
  gemm(
    "t1-cache-reads-swapped",
    [T1, "shared-stages-returned"],
    /sharedMemoryTiling returned \[B_shared, A_shared\]; return \[A's shared copy \(A_shared\), B's shared copy \(B_shared\)\]/,
    replace(`${CACHE_A_SHARED}\n  ${CACHE_B_SHARED}`, `const aShared = sch.cacheRead(gemm, 1, "shared");\n  const bShared = sch.cacheRead(gemm, 0, "shared");`),
  ),
  gemm(
    "t1-returned-order-swapped",
    [T1, "shared-stages-returned"],
    /returned \[B_shared, A_shared\]/,
    replace("return [aShared, bShared];", "return [bShared, aShared];"),
  ),
  gemm(
    "t1-missing-compute-at-a",
    [T1, "a-shared-stage"],
    /the shared stage "A_shared" is computed at the root.*move it under the k-chunk loop \(k_0, extent 32\) with computeAt/,
    remove(AT_A_SHARED),
  ),
  gemm("t1-missing-compute-at-b", [T1, "b-shared-stage"], /the shared stage "B_shared" is computed at the root/, remove(AT_B_SHARED)),
  gemm(
    "t1-compute-at-block-loop",
    [T1, "a-shared-stage"],
    /"A_shared" is computed at j_0 \(extent 32, bound to blockIdx\.y\): move it under the k-chunk loop/,
    replace(AT_A_SHARED, lines("  sch.computeAt(aShared, blockY);")),
  ),
  // ---- task 2: register tiling --------------------------------------------------------------------
  gemm(
    "t2-split-i-by-8",
    [T2, "split-i-by-thread-tile-x"],
    /the i loop of "gemm" is split into tiles of .*8, not 4/,
    replace(SPLIT_TX, "sch.split(innerX, [null, 8])"),
  ),
  gemm(
    "t2-split-j-by-2",
    [T2, "split-j-by-thread-tile-y"],
    /the j loop of "gemm" is split into tiles of .*2, not 4/,
    replace(SPLIT_TY, "sch.split(innerY, [null, 2])"),
  ),
  gemm(
    "t2-split-k-by-2",
    [T2, "split-k-by-thread-tile-k"],
    /the k loop of "gemm" is split into tiles of .*2, not 1/,
    replace(SPLIT_TK, "sch.split(kInner, [null, 2])"),
  ),
  gemm(
    "t2-missing-bind-x",
    [T2, "thread-loops-bound"],
    /the thread loop over i \(i_1_0, extent 16\) is not bound: bind it to threadIdx\.x/,
    replace(BIND_T("threadIdx.x", "threadIdx.y"), BIND_T("", "threadIdx.y")),
  ),
  // Task 4 looks for the threadIdx.y loop and throws without it: it is graded on the solution's tasks 1–3.
  gemm(
    "t2-missing-bind-y",
    [T2, "thread-loops-bound"],
    /the thread loop over j \(j_1_0, extent 16\) is not bound: bind it to threadIdx\.y/,
    replace(BIND_T("threadIdx.x", "threadIdx.y"), BIND_T("threadIdx.x", "")),
  ),
  gemm(
    "t2-thread-binds-swapped",
    [T2, "thread-loops-bound"],
    /threadIdx\.x and threadIdx\.y are swapped/,
    replace(BIND_T("threadIdx.x", "threadIdx.y"), BIND_T("threadIdx.y", "threadIdx.x")),
  ),
  gemm(
    "t2-extra-bind-k-chunk",
    [T2, "thread-loops-bound"],
    /k_1_0 \(extent 64, bound to threadIdx\.z\) is bound too/,
    insertBefore(lines(`  ${CACHE_A_LOCAL}`), lines('  sch.bind(kChunk, "threadIdx.z");')),
  ),
  gemm(
    "t2-k-chunk-outside-threads",
    [T2, "thread-loops-reordered"],
    /the thread loop over i \(i_1_0, .*\) should be outside the k loops inside the chunk \(k_1_0, extent 64\)/,
    replace(REORDER_2, "sch.reorder(kChunk, threadX, threadY, kStep, regX, regY);"),
  ),
  gemm(
    "t2-register-loops-outside-k",
    [T2, "thread-loops-reordered"],
    /the k loops inside the chunk \(k_1_0, extent 64\) should be outside the register loops/,
    replace(REORDER_2, "sch.reorder(threadX, threadY, regX, regY, kChunk, kStep);"),
  ),
  gemm("t2-missing-reorder", [T2, "thread-loops-reordered"], /should be outside the register loops/, remove(lines(`  ${REORDER_2}`))),
  gemm(
    "t2-compute-at-k-chunk",
    [T2, "a-local-stage"],
    /the local stage "A_shared_local" is computed at k_1_0 \(extent 64\): move it under the innermost k loop \(k_1_1, extent 1\)/,
    replace(AT_A_LOCAL, lines("  sch.computeAt(aLocal, kChunk);")),
  ),
  gemm(
    "t2-missing-compute-at-b",
    [T2, "b-local-stage"],
    /the local stage "B_shared_local" is computed .*: move it under the innermost k loop/,
    remove(AT_B_LOCAL),
  ),
  gemm(
    "t2-local-copy-in-shared",
    [T2, "a-local-stage"],
    /"gemm" reads A through a shared copy, not a local one: give cacheRead the scope "local"/,
    replace(CACHE_A_LOCAL, 'const aLocal = sch.cacheRead(gemm, 0, "shared");'),
  ),
  // ---- task 3: cooperative fetching --------------------------------------------------------------
  gemm(
    "t3-a-not-fetched",
    [T3, "a-cooperative-fetch"],
    /no loop of the copy "A_shared" is bound to threadIdx\.x/,
    replace(FETCH_LOOP, "for (const stage of [bShared]) {"),
  ),
  gemm(
    "t3-b-not-fetched",
    [T3, "b-cooperative-fetch"],
    /no loop of the copy "B_shared" is bound to threadIdx\.x/,
    replace(FETCH_LOOP, "for (const stage of [aShared]) {"),
  ),
  gemm(
    "t3-a-copy-under-thread-loops",
    [T3, "a-cooperative-fetch"],
    /each thread copies 4096 elements of "A_shared" per k chunk — the whole 4096-element chunk; its share is 4096 ÷ 256 threads = 16: the copy sits inside the compute's thread loops/,
    insertBefore(FETCH_LOOPS, `if (stage === aShared) sch.computeAt(stage, ${gemmLoopBound("threadIdx.y")});\n    `),
  ),
  gemm(
    "t3-a-row-loop-not-fused",
    [T3, "a-cooperative-fetch"],
    /each thread copies 64 elements of "A_shared" per k chunk; its share is 4096 ÷ 256 threads = 16/,
    replace(FETCH_FUSE, "const fused = stage === aShared ? col : sch.fuse(row, col);"),
  ),
  gemm(
    "t3-a-missing-bind-y",
    [T3, "a-cooperative-fetch"],
    /no loop of the copy "A_shared" is bound to threadIdx\.y/,
    replace(FETCH_BIND_Y, lines('    if (stage !== aShared) sch.bind(threadY, "threadIdx.y");', "  }")),
  ),
  gemm(
    "t3-a-split-by-8-threads",
    [T3, "a-cooperative-fetch"],
    /ax0_ax1_fused_1 \(extent 8, bound to threadIdx\.x\) should have extent 16/,
    replace(FETCH_SPLIT, "sch.split(fused, [null, stage === aShared ? 8 : threadExtentX, threadExtentY])"),
  ),
  // ---- task 4: write cache -----------------------------------------------------------------------
  gemm(
    "t4-missing-reverse-compute-at",
    [T4, "write-back-per-thread"],
    /the stage "matmul_local" is computed at the root.*move it under the innermost thread loop \(j_1_0, .*\) with reverseComputeAt/,
    remove(REVERSE_AT),
  ),
  gemm(
    "t4-write-back-at-thread-x",
    [T4, "write-back-per-thread"],
    /"matmul_local" is computed at i_1_0 \(extent 16, bound to threadIdx\.x\)/,
    replace(FIND_THREAD_Y, 'sch.get(loop).threadTag === "threadIdx.x"'),
  ),
  gemm(
    "t4-write-back-at-block-y",
    [T4, "write-back-per-thread"],
    /"matmul_local" is computed at j_0 \(extent 32, bound to blockIdx\.y\)/,
    replace(FIND_THREAD_Y, 'sch.get(loop).threadTag === "blockIdx.y"'),
  ),
  gemm(
    "t4-write-cache-in-shared",
    [T4, "local-write-stage"],
    /"gemm" writes matmul through a shared copy, not a local one: give cacheWrite the scope "local"/,
    replace(CACHE_WRITE, 'sch.cacheWrite(gemm, 0, "shared")'),
  ),
  // ---- task 5: epilogue fusion -------------------------------------------------------------------
  gemm(
    "t5-missing-add-inline",
    [T5, "add-inlined"],
    /the block "add" still exists: inline it/,
    replace(INLINE_ADD, `${lines("}", "")}/** The complete manual schedule`),
  ),
  gemm("t5-missing-relu-inline", [T5, "relu-inlined"], /the block "relu" still exists: inline it/, remove(INLINE_RELU)),
  // ---- part 2: the tuned trace -------------------------------------------------------------------
  trace("p2-apply-trace-renamed", /trace_submission\.ts does not export `applyTrace`/, replace("export function applyTrace(", "export function applyTuned(")),
  trace("p2-apply-trace-throws", /applyTrace threw Error: paste the trace here/, insertAfter(APPLY_TRACE, lines('  throw new Error("paste the trace here");'))),
  trace("p2-apply-trace-returns-at-once", /applyTrace does not change the schedule/, insertAfter(APPLY_TRACE, lines("  return;"))),
  trace("p2-split-factors-do-not-multiply", /applyTrace threw .*split/i, replace("sch.split(l1, [v4, v5, v6])", "sch.split(l1, [v4, v5, 3])")),
  trace(
    "p2-wrong-block-name",
    /applyTrace threw BlockNotFoundError[\s\S]*Cannot find a block with the name: matmul/,
    replace('const b0 = sch.getBlock("gemm");', 'const b0 = sch.getBlock("matmul");'),
  ),
];
