/**
 * A software-pipelined copy loop with asynchronous global → shared copies, written in the
 * structure TVM's InjectSoftwarePipeline gives `software_pipeline_async_stages=[0]` after
 * lowering and threadSync (before InjectPTXAsyncCopy): for tests of that pass, the cp.async code
 * generator and the simulator's cp.async semantics.
 *
 * One block of `threads` threads streams `tiles` tiles of `threads × lanes` floats of A through a
 * `stages`-deep ring of shared buffers; for tile k, thread t writes
 * B[k, t, :] = 2 · A[k, threads-1-t, :] — data another thread copied, so every read needs the wait
 * and the barrier after it.
 */

export interface AsyncCopyLoopOptions {
  /** Shared buffers in the ring (2: double buffering, 3: triple). */
  readonly stages: 2 | 3;
  /** Floats per copy: 1, 2 or 4 (a 4-, 8- or 16-byte cp.async). */
  readonly lanes: 1 | 2 | 4;
  /** Default 8. */
  readonly tiles?: number;
  /** Default 32. */
  readonly threads?: number;
  /**
   * Elements of A that exist (default all: tiles × threads × lanes). Fewer make each copy
   * predicated: beyond the end, the shared buffer is zero-filled. A multiple of `lanes`.
   */
  readonly validElements?: number;
  /** How the consumer waits: `exact` (default), `missing` (no wait), `lenient` (one group too many in flight). */
  readonly wait?: "exact" | "missing" | "lenient";
  /** Keep the barrier after each wait (default true). */
  readonly syncAfterWait?: boolean;
  /** The global symbol (default `async_copy`). */
  readonly name?: string;
}

interface Shape {
  readonly stages: number;
  readonly lanes: number;
  readonly tiles: number;
  readonly threads: number;
  readonly tile: number;
  readonly total: number;
  readonly valid: number;
}

function shapeOf(o: AsyncCopyLoopOptions): Shape {
  const tiles = o.tiles ?? 8;
  const threads = o.threads ?? 32;
  const tile = threads * o.lanes;
  if (o.validElements !== undefined && o.validElements % o.lanes !== 0) {
    throw new Error(`validElements (${o.validElements}) must be a multiple of lanes (${o.lanes}): a copy is zero-filled as a whole`);
  }
  return { stages: o.stages, lanes: o.lanes, tiles, threads, tile, total: tiles * tile, valid: o.validElements ?? tiles * tile };
}

function indent(lines: readonly string[], depth: number): string[] {
  return lines.map((l) => `${"    ".repeat(depth)}${l}`);
}

/** Copies tile `k` (a TVMScript expression) into ring slot `slot`. */
function producer(s: Shape, k: string, slot: string): string[] {
  const at = (base: string): string => (s.lanes === 1 ? base : `T.Ramp(${base}, 1, ${s.lanes})`);
  const first = `${k} * ${s.tile} + threadIdx_x * ${s.lanes}`;
  let value = `A[${at(first)}]`;
  if (s.valid < s.total) {
    const zero = s.lanes === 1 ? "T.float32(0)" : `T.Broadcast(T.float32(0), ${s.lanes})`;
    value = `T.if_then_else(${first} < ${s.valid}, ${value}, ${zero})`;
  }
  return [
    'with T.attr(0, "async_commit_queue_scope", 0):',
    '    with T.attr(0, "async_scope", 1):',
    `        A_shared_1[${at(`${slot} * ${s.tile} + threadIdx_x * ${s.lanes}`)}] = ${value}`,
  ];
}

/** Waits until tile `k` has landed (at most `inflight` newer groups pending), then uses it. */
function consumer(s: Shape, o: AsyncCopyLoopOptions, tile: string, inflight: string): string[] {
  const k = /^\w+$/.test(tile) ? tile : `(${tile})`;
  const slot = `${k} % ${s.stages}`;
  const use = [
    ...(o.syncAfterWait === false ? [] : ['T.tvm_storage_sync("shared")']),
    `for j in range(${s.lanes}):`,
    `    B[${k} * ${s.tile} + threadIdx_x * ${s.lanes} + j] = A_shared_1[${slot} * ${s.tile} + (${s.threads - 1} - threadIdx_x) * ${s.lanes} + j] * T.float32(2)`,
  ];
  const wait = o.wait ?? "exact";
  if (wait === "missing") return use;
  const count = wait === "lenient" ? `${inflight} + 1` : inflight;
  return ['with T.attr(0, "async_wait_queue_scope", 0):', `    with T.attr(0, "async_wait_inflight_count", ${count}):`, ...indent(use, 2)];
}

/** The kernel in TVMScript, as it reaches injectPTXAsyncCopy. */
export function loweredAsyncCopyScript(opts: AsyncCopyLoopOptions): string {
  const s = shapeOf(opts);
  const ahead = s.stages - 1;
  const steady = s.tiles - ahead;
  const epilogue =
    ahead === 1
      ? consumer(s, opts, String(s.tiles - 1), "0")
      : [`for e in range(${ahead}):`, ...indent(consumer(s, opts, `${steady} + e`, `${ahead - 1} - e`), 1)];
  const body = [
    ...[`for p in range(${ahead}):`, ...indent(producer(s, "p", "p"), 1)],
    `for k in range(${steady}):`,
    // The producer overwrites the slot the previous iteration read.
    '    T.tvm_storage_sync("shared")',
    ...indent(producer(s, `(k + ${ahead})`, `(k + ${ahead}) % ${s.stages}`), 1),
    ...indent(consumer(s, opts, "k", String(ahead)), 1),
    ...epilogue,
  ];
  return [
    "@T.prim_func",
    `def main(A: T.Buffer((${s.valid},), "float32"), B: T.Buffer((${s.total},), "float32")):`,
    `    T.func_attr({"global_symbol": "${opts.name ?? "async_copy"}", "tir.noalias": T.bool(True)})`,
    '    blockIdx_x = T.launch_thread("blockIdx.x", 1)',
    `    A_shared = T.allocate([${s.stages * s.tile}], "float32", "shared")`,
    `    A_shared_1 = T.Buffer((${s.stages * s.tile},), data=A_shared, scope="shared")`,
    `    threadIdx_x = T.launch_thread("threadIdx.x", ${s.threads})`,
    ...indent(body, 1),
    "",
  ].join("\n");
}

/** What the kernel computes, as a plain loop nest for the sequential executor. */
export function asyncCopyReferenceScript(opts: AsyncCopyLoopOptions): string {
  const s = shapeOf(opts);
  const src = `k * ${s.tile} + (${s.threads - 1} - t) * ${s.lanes} + j`;
  return [
    "@T.prim_func",
    `def main(A: T.Buffer((${s.valid},), "float32"), B: T.Buffer((${s.total},), "float32")):`,
    `    T.func_attr({"global_symbol": "${opts.name ?? "async_copy"}"})`,
    `    for k in range(${s.tiles}):`,
    `        for t in range(${s.threads}):`,
    `            for j in range(${s.lanes}):`,
    `                B[k * ${s.tile} + t * ${s.lanes} + j] = T.if_then_else(${src} < ${s.valid}, A[${src}], T.float32(0)) * T.float32(2)`,
    "",
  ].join("\n");
}
