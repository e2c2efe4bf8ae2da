/**
 * The user-facing schedule: TVM's TensorIR schedule API in camelCase. Every primitive goes through
 * `invoke`, which runs the instruction kind on a forked state, records it in the trace, and adopts
 * the new state only when it succeeds — a failed call leaves the schedule unchanged and throws a
 * `ScheduleError` whose message shows the IR with the offending nodes underlined.
 */
import {
  type Block,
  type Buffer,
  type For,
  type IRModule,
  type PrimFunc,
  type StorageScope,
  TesseraError,
  entryFunctionName,
  irModule,
  printTVMScript,
  verifyWellFormed,
} from "@tessera/ir";
import { PrimitiveContext, describe } from "./context.js";
import { ScheduleError, ScheduleUsageError } from "./errors.js";
import { type ExprRVs, type LoopsFor, requireBlock, requireHandle, requireLoop, requireLoops } from "./handle-args.js";
import { BlockRV, type ExprRV, LoopRV, type RV } from "./handles.js";
import { type Decision, type Instruction, type InstructionAttr, type InstructionInput, type InstructionKind, instructionKind } from "./instruction.js";
import "./primitives/index.js";
import { type IndexMapFn, indexMapFromFn, indexMapToAttr } from "./primitives/layout/index-map.js";
import { type BufferSpec, TransformLayoutError } from "./primitives/layout/transform.js";
import { RandomEngine } from "./random.js";
import { ScheduleState } from "./state/schedule-state.js";
import { ownTree } from "./state/own-tree.js";
import { ENTER_POSTPROC } from "./trace/kinds.js";
import { Trace } from "./trace/trace.js";

export interface ScheduleOptions {
  /** Seed of the random engine used by sampling primitives (random when absent). */
  seed?: number;
  /** "all" re-verifies the IR after every primitive (slower; for debugging primitives). */
  debugMask?: "none" | "all";
  /** The function to work on in a module with several (default: the only one, else "main"). */
  funcName?: string;
}

/** What `annotate` takes: a scalar, a sampled integer, or (nested) arrays of those. */
export type AnnotationInput = string | number | boolean | ExprRV | readonly AnnotationInput[];

/** A block: its handle, or its name (looked up with `getBlock`). */
export type BlockArg = BlockRV | string | undefined;

/** Every scope of `@tessera/ir` (including TVM's `wmma.*` tensor-core fragments). */
export type StorageScopeName = StorageScope;

/**
 * A TensorIR schedule (TVM's `tir.Schedule`): wraps a PrimFunc or an IRModule, transforms it with
 * primitives that take and return handles (`BlockRV`, `LoopRV`, `ExprRV`), and records each call in
 * `trace`. A primitive that cannot apply throws a `ScheduleError` naming the offending IR and
 * leaves the schedule unchanged.
 */
export class Schedule {
  private state: ScheduleState;
  private readonly traceData: Trace;
  private readonly debugMask: "none" | "all";

  /** Schedules a PrimFunc (as the module's `main`) or an IRModule; throws `ScheduleUsageError` for anything else. */
  constructor(funcOrModule: PrimFunc | IRModule, opts: ScheduleOptions = {}) {
    const kind = (funcOrModule as { kind?: unknown } | null | undefined)?.kind;
    if (kind !== "PrimFunc" && kind !== "IRModule") {
      throw new ScheduleUsageError("schedule", `new Schedule(...) expects a PrimFunc or an IRModule, got ${describe(funcOrModule)}`);
    }
    const mod = funcOrModule.kind === "PrimFunc" ? irModule({ main: funcOrModule }) : funcOrModule;
    const owned = irModule(new Map([...mod.functions].map(([name, f]) => [name, ownTree(f)])));
    const funcName = opts.funcName ?? entryFunctionName(owned);
    this.state = new ScheduleState(owned, funcName, new Map(), new RandomEngine(opts.seed));
    this.traceData = new Trace();
    this.debugMask = opts.debugMask ?? "none";
  }

  /** The module as scheduled so far. */
  get mod(): IRModule {
    return this.state.mod;
  }

  /** The function being scheduled. */
  get func(): PrimFunc {
    return this.state.func();
  }

  /** The name of the function that `getBlock` searches by default (see `workOn`). */
  get funcName(): string {
    return this.state.funcName;
  }

  /** The instructions applied so far, with their sampling decisions (TVM's `sch.trace`). */
  get trace(): Trace {
    return this.traceData;
  }

  /** TVMScript of the module (colours when `color` is set). */
  script(opts: { color?: boolean } = {}): string {
    const mod = this.state.mod;
    if (mod.functions.size === 1) {
      const [name, func] = [...mod.functions][0]!;
      return printTVMScript(func, { color: opts.color ?? false, funcName: name });
    }
    return printTVMScript(mod, { color: opts.color ?? false });
  }

  /**
   * Prints the current IR to stdout (with colours on a terminal) and returns the text. Where there
   * is no `process` (a browser, the autograder's sandbox) it goes to `console.log`.
   */
  show(): string {
    const stdout = typeof process === "undefined" ? undefined : process.stdout;
    const text = this.script({ color: stdout?.isTTY === true });
    if (stdout === undefined) console.log(text.endsWith("\n") ? text.slice(0, -1) : text);
    else stdout.write(text);
    return text;
  }

  /** An independent copy: same IR, trace, sampled values and random state. Handles stay valid in both. */
  copy(): Schedule {
    const c = Object.create(Schedule.prototype) as Schedule;
    Object.assign(c, { state: this.state.fork(), traceData: this.traceData.copy(), debugMask: this.debugMask });
    return c;
  }

  /** Reseeds the random engine of the sampling primitives (TVM's `sch.seed`). */
  seed(seed: number): void {
    this.state.rng.seed(seed);
  }

  /** A fresh seed drawn from this schedule's random engine, for a copy's or a child's engine (TVM's `fork_seed`). */
  forkSeed(): number {
    return this.state.rng.forkSeed();
  }

  /** Chooses the function `getBlock` searches by default; throws `ScheduleUsageError` when the module has none of that name. */
  workOn(funcName: string): void {
    if (!this.state.mod.functions.has(funcName)) {
      throw new ScheduleUsageError("work-on", `the module has no function named "${funcName}"`);
    }
    this.state.funcName = funcName;
  }

  /**
   * The current node of a handle, or the value of a sampled variable (TVM's `sch.get`). Throws
   * `StaleHandleError` for a handle whose node a later primitive replaced.
   */
  get(rv: BlockRV | undefined): Block;
  get(rv: LoopRV | undefined): For;
  get(rv: ExprRV | undefined): number;
  get(rv: RV | undefined): Block | For | number {
    const handle = requireHandle("get", "rv", rv);
    const ctx = new PrimitiveContext(this.state);
    if (handle instanceof BlockRV) return this.guard("get", () => ctx.block(handle, "get").node);
    if (handle instanceof LoopRV) return this.guard("get", () => ctx.loop(handle, "get").node);
    return this.guard("get", () => ctx.value(handle, "get", "value"));
  }

  // Handle parameters accept `undefined` so that destructured `getLoops` results type-check under
  // noUncheckedIndexedAccess; `require*` (handle-args.ts) rejects an actual undefined clearly.

  // ---- lookup ------------------------------------------------------------------------------

  /** The block named `name` (in `funcName`, default the current function); throws `BlockNotFoundError` when there is none or several. */
  getBlock(name: string, funcName?: string): BlockRV {
    return this.invoke1("GetBlock", [], [name, funcName ?? this.state.funcName]) as BlockRV;
  }

  /** The loops above `block`, outermost first (TVM's `get_loops`). */
  getLoops(block: BlockArg): LoopRV[] {
    return this.invoke("GetLoops", [this.blockArg("getLoops", "block", block)], []) as LoopRV[];
  }

  /** The blocks directly under a block or a loop, in program order (TVM's `get_child_blocks`). */
  getChildBlocks(blockOrLoop: BlockRV | LoopRV | undefined): BlockRV[] {
    return this.invoke("GetChildBlocks", [requireHandle("getChildBlocks", "blockOrLoop", blockOrLoop)], []) as BlockRV[];
  }

  /** The blocks in the same scope that write what `block` reads (TVM's `get_producers`). */
  getProducers(block: BlockArg): BlockRV[] {
    return this.invoke("GetProducers", [this.blockArg("getProducers", "block", block)], []) as BlockRV[];
  }

  /** The blocks in the same scope that read what `block` writes (TVM's `get_consumers`). */
  getConsumers(block: BlockArg): BlockRV[] {
    return this.invoke("GetConsumers", [this.blockArg("getConsumers", "block", block)], []) as BlockRV[];
  }

  // ---- loops -------------------------------------------------------------------------------

  /**
   * Splits a loop; one factor may be `null`/`undefined` and is inferred. Returns one loop per
   * factor, typed as a tuple when the factors are (`split(i, [null, 32])`: `[LoopRV, LoopRV]`).
   * Rejects several inferred factors, non-positive factors, factors whose product does not cover
   * the extent, and loops that are annotated, bound to a thread or do not start at 0.
   */
  split<const F extends ReadonlyArray<number | ExprRV | null | undefined>>(
    loop: LoopRV | undefined,
    factors: F,
    opts: { preserveUnitIters?: boolean; disablePredication?: boolean } = {},
  ): LoopsFor<F> {
    const target = requireLoop("split", "loop", loop);
    return this.invoke(
      "Split",
      [target, ...factors.map((f) => f ?? null)],
      [opts.preserveUnitIters ?? true, opts.disablePredication ?? false],
    ) as LoopRV[] as LoopsFor<F>;
  }

  /**
   * Fuses consecutive loops, each the only child of the one before, into one loop over the product
   * of their extents (TVM's `fuse`); returns it. Rejects loops that are not such a chain, that an
   * inner loop's extent depends on, or that are annotated, bound or do not start at 0.
   */
  fuse(...loops: (LoopRV | undefined)[]): LoopRV {
    return this.invoke1("Fuse", requireLoops("fuse", "loops", loops), [true]) as LoopRV;
  }

  /**
   * Reorders loops of one chain into the given order (TVM's `reorder`). Rejects a loop given twice,
   * loops not on one chain, bound or annotated loops, and blocks under them with non-affine bindings.
   */
  reorder(...loops: (LoopRV | undefined)[]): void {
    this.invoke("Reorder", requireLoops("reorder", "loops", loops), []);
  }

  /**
   * Binds a loop to a GPU thread axis: "blockIdx.x", "threadIdx.y", "vthread.x", … (TVM's `bind`).
   * Rejects an unknown axis, a loop over reduction iterators, and blocks whose data flow is not compact.
   */
  bind(loop: LoopRV | undefined, threadAxis: string): void {
    this.invoke("Bind", [requireLoop("bind", "loop", loop)], [threadAxis]);
  }

  /** Marks a loop parallel (TVM's `parallel`); rejects a loop over reduction iterators and non-compact data flow. */
  parallel(loop: LoopRV | undefined): void {
    this.invoke("Parallel", [requireLoop("parallel", "loop", loop)], []);
  }

  /** Marks a loop vectorized (TVM's `vectorize`); rejects a loop over reduction iterators and non-compact data flow. */
  vectorize(loop: LoopRV | undefined): void {
    this.invoke("Vectorize", [requireLoop("vectorize", "loop", loop)], []);
  }

  /** Marks a loop to be unrolled when lowered (TVM's `unroll`). */
  unroll(loop: LoopRV | undefined): void {
    this.invoke("Unroll", [requireLoop("unroll", "loop", loop)], []);
  }

  /**
   * Sets annotation `key` of a block or a loop to `value` (TVM's `annotate`); lowering reads keys
   * such as `pragma_auto_unroll_max_step`. Rejects a value of the wrong type for a known key.
   */
  annotate(blockOrLoop: BlockRV | LoopRV | undefined, key: string, value: AnnotationInput | undefined): void {
    const target = requireHandle("annotate", "blockOrLoop", blockOrLoop);
    if (value === undefined) requireHandle("annotate", "value", value);
    this.invoke("Annotate", [target, value as InstructionInput], [key]);
  }

  /** Removes annotation `key` from a block or a loop (TVM's `unannotate`); rejects a key that is not set. */
  unannotate(blockOrLoop: BlockRV | LoopRV | undefined, key: string): void {
    this.invoke("Unannotate", [requireHandle("unannotate", "blockOrLoop", blockOrLoop)], [key]);
  }

  // ---- data movement -----------------------------------------------------------------------

  /**
   * Inserts a block that copies the `readBuffer` (an index among the block's reads, or a name) into
   * a new buffer in `scope`, read by `block` (and `consumerBlocks`) instead; returns the copy block
   * (TVM's `cache_read`). Rejects the root block, a bad index or scope, and regions it cannot cover.
   */
  cacheRead(block: BlockArg, readBuffer: number | string, scope: StorageScopeName, consumerBlocks: readonly BlockArg[] = []): BlockRV {
    // As in TVM: consumer names are looked up before the block's.
    const consumers = consumerBlocks.map((b, i) => this.blockArg("cacheRead", `consumerBlocks[${i}]`, b));
    const target = this.blockArg("cacheRead", "block", block);
    const index = this.bufferIndex("cacheRead", target, readBuffer, "read");
    return this.invoke1("CacheRead", [target, consumers], [index, scope]) as BlockRV;
  }

  /**
   * Makes `block` write `writeBuffer` (an index among its writes, or a name) into a new buffer in
   * `scope`, and inserts a block that copies it back; returns the copy block (TVM's `cache_write`).
   * Rejects the root block, a bad index or scope, and a buffer written by several blocks.
   */
  cacheWrite(block: BlockArg, writeBuffer: number | string, scope: StorageScopeName, consumerBlocks: readonly BlockArg[] = []): BlockRV {
    const consumers = consumerBlocks.map((b, i) => this.blockArg("cacheWrite", `consumerBlocks[${i}]`, b));
    const target = this.blockArg("cacheWrite", "block", block);
    const index = this.bufferIndex("cacheWrite", target, writeBuffer, "write");
    return this.invoke1("CacheWrite", [target, consumers], [index, scope]) as BlockRV;
  }

  /**
   * Moves a buffer the block writes (an index among its writes, or a name) and allocates to
   * `scope` (TVM's `set_scope`). Rejects a bad index or scope and a function parameter.
   */
  setScope(block: BlockArg, buffer: number | string, scope: StorageScopeName): void {
    const target = this.blockArg("setScope", "block", block);
    this.invoke("SetScope", [target], [this.bufferIndex("setScope", target, buffer, "write"), scope]);
  }

  /**
   * Pads the stride of dimension `axis` of the block's `bufferIndex`-th write so that it is
   * `offset` modulo `factor`, against shared-memory bank conflicts (TVM's `storage_align`).
   * Rejects a parameter buffer, an axis out of range and a non-positive factor.
   */
  storageAlign(block: BlockArg, bufferIndex: number, axis: number, factor: number, offset: number): void {
    this.invoke("StorageAlign", [this.blockArg("storageAlign", "block", block)], [bufferIndex, axis, factor, offset]);
  }

  /**
   * Swizzles the physical layout of the block's `bufferIndex`-th write, a shared buffer allocated
   * by a block: element `indices` is stored where `indexMap(indices)` would be in the plain layout
   * (TVM's permuted layout, as a general index map, typically an XOR of 16-byte chunks with the
   * row: `(r, c) => [r, bitwiseXor(floordiv(c, 8), floormod(r, 8)) * 8 + floormod(c, 8)]`).
   * Accesses keep their logical indices; lowering applies the map to the flat offsets. The map
   * must permute the buffer's index space (else `SwizzleLayoutError`) and replaces any storage_align.
   * `"permuted"`: TVM's permuted layout (`sharedSwizzle`) of the tile as lowering compacts it.
   */
  swizzleLayout(block: BlockArg, bufferIndex: number, indexMap: IndexMapFn | "permuted"): void {
    const blk = this.blockArg("swizzleLayout", "block", block);
    if (indexMap === "permuted") {
      this.invoke("SwizzleLayout", [blk], [bufferIndex, indexMap]);
      return;
    }
    if (typeof indexMap !== "function")
      throw new ScheduleUsageError("swizzleLayout", `indexMap must be a function of the buffer's indices or "permuted", got ${describe(indexMap)}`);
    const map = this.guard("swizzleLayout", () => indexMapFromFn(indexMap, indexMap.length));
    this.invoke("SwizzleLayout", [blk], [bufferIndex, indexMapToAttr(map)]);
  }

  /**
   * Gives a buffer the block reads or writes (allocated by a block) a new layout: `indexMap` maps
   * its old indices to new ones, e.g. `(i, k) => [k, i]` stores a tile transposed. The map must
   * be a bijection of the buffer's index space (TVM's `transform_layout` without padding);
   * other maps throw `TransformLayoutError` or `IndexMapError`.
   */
  transformLayout(block: BlockArg, buffer: BufferSpec, indexMap: IndexMapFn): void {
    const blk = this.blockArg("transformLayout", "block", block);
    if (typeof indexMap !== "function")
      throw new ScheduleUsageError("transformLayout", `indexMap must be a function of the buffer's indices, got ${describe(indexMap)}`);
    const target = this.guard("transformLayout", () => specifiedBuffer(this.get(blk), buffer));
    const ndim = target?.shape.length ?? indexMap.length;
    if (target !== undefined && indexMap.length > 0 && indexMap.length !== ndim) {
      const detail = `the index map takes ${indexMap.length} index${indexMap.length === 1 ? "" : "es"} but buffer ${target.name} has ${ndim} dimensions`;
      throw new TransformLayoutError("transform-layout", detail).attachIR(this.func, this.funcName);
    }
    const map = this.guard("transformLayout", () => indexMapFromFn(indexMap, ndim));
    this.invoke("TransformLayout", [blk], [buffer as InstructionAttr, indexMapToAttr(map)]);
  }

  // ---- compute location --------------------------------------------------------------------

  /**
   * Moves a producer block under `loop` of its consumer, computing only the region the consumer
   * needs there (TVM's `compute_at`). Rejects an output block, a block in another scope, and a
   * location above which some consumer is not visited.
   */
  computeAt(block: BlockArg, loop: LoopRV | undefined, preserveUnitLoops = false, index = -1): void {
    const inputs = [this.blockArg("computeAt", "block", block), requireLoop("computeAt", "loop", loop)];
    this.invoke("ComputeAt", inputs, [preserveUnitLoops, index]);
  }

  /**
   * Moves a consumer block under `loop` of its producer, computing the region that the producer
   * has written by then (TVM's `reverse_compute_at`). Rejects a block in another scope and a
   * location below which some producer is not complete.
   */
  reverseComputeAt(block: BlockArg, loop: LoopRV | undefined, preserveUnitLoops = false, index = -1): void {
    const inputs = [this.blockArg("reverseComputeAt", "block", block), requireLoop("reverseComputeAt", "loop", loop)];
    this.invoke("ReverseComputeAt", inputs, [preserveUnitLoops, index]);
  }

  /**
   * Inlines a block into its consumers and removes it (TVM's `compute_inline`). Rejects a reduction
   * block, a block that writes more than one buffer or whose body is not a plain store, and the only leaf of a scope.
   */
  computeInline(block: BlockArg): void {
    this.invoke("ComputeInline", [this.blockArg("computeInline", "block", block)], []);
  }

  /**
   * Inlines a block into its single producer, which then writes the block's result (TVM's
   * `reverse_compute_inline`). Rejects a reduction block, several producers and a body that is not a plain store.
   */
  reverseComputeInline(block: BlockArg): void {
    this.invoke("ReverseComputeInline", [this.blockArg("reverseComputeInline", "block", block)], []);
  }

  // ---- reductions --------------------------------------------------------------------------

  /**
   * Splits a reduction block's init out into its own block, placed above `loop`; returns the init
   * block (TVM's `decompose_reduction`). Rejects a loop that is not above the block or is too high.
   */
  decomposeReduction(block: BlockArg, loop: LoopRV | undefined): BlockRV {
    const inputs = [this.blockArg("decomposeReduction", "block", block), requireLoop("decomposeReduction", "loop", loop)];
    return this.invoke1("DecomposeReduction", inputs, []) as BlockRV;
  }

  /**
   * Factors the reduction over `loop` into a new block that reduces into a buffer with an extra axis at
   * `factorAxis`, and returns it (TVM's `rfactor`). Rejects non-serial loops, unknown reducers and bad axes.
   */
  rfactor(loop: LoopRV | undefined, factorAxis: number): BlockRV {
    return this.invoke1("RFactor", [requireLoop("rfactor", "loop", loop)], [factorAxis]) as BlockRV;
  }

  // ---- blockize and tensorize --------------------------------------------------------------

  /**
   * Turns the subtree under `loop` into a new block `<name>_o` whose iterators cover the outer
   * subspace of the single block below (TVM's `blockize`); returns the new block. Given a list of
   * blocks instead, wraps the consecutive statements holding them into one block
   * `outer_<names>_`. With `preserveUnitIters: false` iterators of extent 1 are dropped from the
   * bindings. Rejects a loop with more than one block below, bindings that do not split at the
   * loop (`SubspaceNotDivisibleError`) and blocks that are not consecutive siblings.
   */
  blockize(target: LoopRV | readonly BlockArg[] | undefined, opts: { preserveUnitIters?: boolean } = {}): BlockRV {
    const input = Array.isArray(target)
      ? target.map((b, i) => this.blockArg("blockize", `target[${i}]`, b))
      : requireLoop("blockize", "target", target as LoopRV | undefined);
    return this.invoke1("Blockize", [input], [opts.preserveUnitIters ?? true]) as BlockRV;
  }

  /**
   * Replaces a block, or the subtree under a loop (blockized first), by the implementation of the
   * tensor intrinsic `intrinName` (registered with `TensorIntrin.register`), after checking that it
   * computes what the intrinsic's description computes (TVM's `tensorize`). A mismatch throws a
   * `TensorIntrinMismatchError` naming the loop or block, the intrinsic and what differs.
   */
  tensorize(blockOrLoop: BlockArg | LoopRV, intrinName: string, opts: { preserveUnitIters?: boolean } = {}): void {
    const target = blockOrLoop instanceof LoopRV ? blockOrLoop : this.blockArg("tensorize", "blockOrLoop", blockOrLoop);
    this.invoke("Tensorize", [target], [intrinName, opts.preserveUnitIters ?? true]);
  }

  // ---- sampling ----------------------------------------------------------------------------

  /**
   * Samples `n` tile sizes whose product is the loop's extent, the innermost at most
   * `maxInnermostFactor` (-1: no bound); a tuple of `n` values for a literal `n` (TVM's
   * `sample_perfect_tile`). Rejects a non-positive `n` and a loop without a positive constant extent.
   */
  samplePerfectTile<const N extends number>(loop: LoopRV | undefined, n: N, maxInnermostFactor = 16, decision?: readonly number[]): ExprRVs<N> {
    const target = requireLoop("samplePerfectTile", "loop", loop);
    return this.invoke("SamplePerfectTile", [target], [n, maxInnermostFactor], decision) as ExprRV[] as ExprRVs<N>;
  }

  /**
   * Samples one of `candidates` with probabilities `probs` (TVM's `sample_categorical`); rejects
   * empty or mismatched lists, negative probabilities and a decision out of range.
   */
  sampleCategorical(candidates: readonly number[], probs: readonly number[], decision?: number): ExprRV {
    return this.invoke1("SampleCategorical", [], [candidates, probs], decision) as ExprRV;
  }

  /**
   * A location to compute `block` at: a loop, or a fresh location mark (`isRootMark` /
   * `isInlineMark`) that `computeAt` understands (TVM's `sample_compute_location`).
   */
  sampleComputeLocation(block: BlockArg, decision?: number): LoopRV {
    const target = this.blockArg("sampleComputeLocation", "block", block);
    return this.invoke1("SampleComputeLocation", [target], [], decision) as LoopRV;
  }

  // ---- the one mechanism -------------------------------------------------------------------

  /**
   * Marks the start of postprocessing in the trace (TVM's `EnterPostproc`): the instructions
   * recorded after it are dropped by `removePostproc` when the trace is replayed or mutated.
   */
  enterPostproc(): void {
    this.traceData.append({ kind: ENTER_POSTPROC, inputs: [], attrs: [], outputs: [] });
  }

  /**
   * Runs one instruction by kind name: applies it on a forked state, records it, and adopts the
   * result. Used by every primitive method and by trace replay. Throws `ScheduleUsageError` for an unknown kind.
   */
  invoke(kindName: string, inputs: readonly InstructionInput[], attrs: readonly InstructionAttr[], decision?: Decision): RV[] {
    const kind = instructionKind(kindName);
    if (kind === undefined) throw new ScheduleUsageError(kindName, `unknown instruction kind "${kindName}"`);
    return this.invokeKind(kind, inputs, attrs, decision);
  }

  /** `invoke` for an instruction kind already looked up; returns the instruction's outputs. */
  invokeKind(kind: InstructionKind, inputs: readonly InstructionInput[], attrs: readonly InstructionAttr[], decision?: Decision): RV[] {
    const work = this.state.fork();
    const ctx = new PrimitiveContext(work);
    const result = this.guard(kind.method, () => {
      const r = kind.apply(ctx, inputs, attrs, decision);
      if (this.debugMask === "all") verifyWellFormed(ctx.func);
      return r;
    });
    this.state = work;
    const inst: Instruction = { kind, inputs, attrs, outputs: result.outputs };
    this.traceData.append(inst, result.decision ?? decision);
    return [...result.outputs];
  }

  private invoke1(kindName: string, inputs: readonly InstructionInput[], attrs: readonly InstructionAttr[], decision?: Decision): RV {
    const outputs = this.invoke(kindName, inputs, attrs, decision);
    if (outputs.length !== 1 || instructionKind(kindName)?.singleOutput !== true) {
      throw new Error(`internal error: ${kindName} is used as a single-output kind but gave ${outputs.length} outputs`);
    }
    return outputs[0]!;
  }

  /**
   * A block argument: a handle, or a block name that is looked up with `getBlock` (recorded in
   * the trace, as TVM's `_normalize_block_arg` does).
   */
  private blockArg(method: string, arg: string, block: BlockArg): BlockRV {
    if (typeof block === "string") return this.getBlock(block);
    return requireBlock(method, arg, block);
  }

  /**
   * A buffer argument of `kind` ("read" / "write"): an index into the block's reads or writes, or
   * the name of one buffer among its reads and writes (TVM's `_normalize_buffer_arg`).
   */
  private bufferIndex(method: string, block: BlockRV, buffer: number | string, kind: "read" | "write"): number {
    if (typeof buffer !== "string") return buffer;
    const blk = this.get(block);
    const matches = new Map<Buffer, [kind: "read" | "write", index: number]>();
    blk.reads.forEach((r, i) => {
      if (r.buffer.name === buffer && !matches.has(r.buffer)) matches.set(r.buffer, ["read", i]);
    });
    blk.writes.forEach((w, i) => {
      if (w.buffer.name === buffer && !matches.has(w.buffer)) matches.set(w.buffer, ["write", i]);
    });
    const fail = (why: string) => new ScheduleUsageError(method, `${method}: ${why}`).attachIR(this.state.func(), this.state.funcName);
    if (matches.size === 0) throw fail(`block "${blk.name}" neither reads nor writes a buffer named "${buffer}"`);
    if (matches.size > 1) throw fail(`block "${blk.name}" accesses several buffers named "${buffer}"; pass the ${kind} index instead`);
    const [found, index] = [...matches.values()][0]!;
    if (found !== kind) throw fail(`buffer "${buffer}" is a ${found} buffer of block "${blk.name}", expected a ${kind} buffer`);
    return index;
  }

  /** Runs `f`, rendering a ScheduleError with the current IR before it propagates. */
  private guard<T>(primitive: string, f: () => T): T {
    try {
      return f();
    } catch (err) {
      if (err instanceof ScheduleError) throw err.attachIR(this.state.func(), this.state.funcName);
      if (err instanceof TesseraError) {
        throw new ScheduleError(primitive, err.message).attachIR(this.state.func(), this.state.funcName);
      }
      throw err;
    }
  }
}

/** The buffer `spec` names in `block`, when it names one (the primitive reports bad specs). */
function specifiedBuffer(block: Block, spec: BufferSpec): Buffer | undefined {
  if (typeof spec === "string") return [...block.writes, ...block.reads].find((r) => r.buffer.name === spec)?.buffer;
  if (!Array.isArray(spec)) return undefined;
  const regions = spec[0] === "read" ? block.reads : block.writes;
  return regions[spec[1]]?.buffer;
}
