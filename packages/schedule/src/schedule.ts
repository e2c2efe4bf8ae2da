/**
 * The user-facing schedule: TVM's TensorIR schedule API in camelCase. Every primitive goes through
 * `invoke`, which runs the instruction kind on a forked state, records it in the trace, and adopts
 * the new state only when it succeeds — a failed call leaves the schedule unchanged and throws a
 * `ScheduleError` whose message shows the IR with the offending nodes underlined.
 */
import {
  type Block,
  type For,
  type IRModule,
  type PrimFunc,
  TesseraError,
  entryFunctionName,
  irModule,
  printTVMScript,
  verifyWellFormed,
} from "@tessera/ir";
import { PrimitiveContext, describe } from "./context.js";
import { ScheduleError, ScheduleUsageError } from "./errors.js";
import { BlockRV, ExprRV, LoopRV, type RV } from "./handles.js";
import {
  type Decision,
  type Instruction,
  type InstructionAttr,
  type InstructionInput,
  type InstructionKind,
  instructionKind,
} from "./instruction.js";
import "./primitives/index.js";
import { RandomEngine } from "./random.js";
import { ScheduleState } from "./state/schedule-state.js";
import { ownTree } from "./state/own-tree.js";
import { Trace } from "./trace/trace.js";

export interface ScheduleOptions {
  /** Seed of the random engine used by sampling primitives (random when absent). */
  seed?: number;
  /** "all" re-verifies the IR after every primitive (slower; for debugging primitives). */
  debugMask?: "none" | "all";
  /** The function to work on in a module with several (default: the only one, else "main"). */
  funcName?: string;
}

export type StorageScopeName = "global" | "shared" | "shared.dyn" | "local" | "warp";

export class Schedule {
  private state: ScheduleState;
  private readonly traceData: Trace;
  private readonly debugMask: "none" | "all";

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

  get funcName(): string {
    return this.state.funcName;
  }

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

  /** Prints the current IR to stdout (with colours on a terminal) and returns the text. */
  show(): string {
    const text = this.script({ color: process.stdout.isTTY === true });
    process.stdout.write(text);
    return text;
  }

  /** An independent copy: same IR, trace, sampled values and random state. Handles stay valid in both. */
  copy(): Schedule {
    const c = Object.create(Schedule.prototype) as Schedule;
    Object.assign(c, { state: this.state.fork(), traceData: this.traceData.copy(), debugMask: this.debugMask });
    return c;
  }

  seed(seed: number): void {
    this.state.rng.seed(seed);
  }

  forkSeed(): number {
    return this.state.rng.forkSeed();
  }

  /** Chooses the function `getBlock` searches by default. */
  workOn(funcName: string): void {
    if (!this.state.mod.functions.has(funcName)) {
      throw new ScheduleUsageError("work-on", `the module has no function named "${funcName}"`);
    }
    this.state.funcName = funcName;
  }

  /** The current node of a handle, or the value of a sampled variable. */
  get(rv: BlockRV): Block;
  get(rv: LoopRV): For;
  get(rv: ExprRV): number;
  get(rv: RV): Block | For | number {
    const ctx = new PrimitiveContext(this.state);
    if (rv instanceof BlockRV) return this.guard("get", () => ctx.block(rv, "get").node);
    if (rv instanceof LoopRV) return this.guard("get", () => ctx.loop(rv, "get").node);
    return this.guard("get", () => ctx.value(rv, "get", "value"));
  }

  // ---- lookup ------------------------------------------------------------------------------

  getBlock(name: string, funcName?: string): BlockRV {
    return this.invoke1("GetBlock", [], [name, funcName ?? this.state.funcName]) as BlockRV;
  }

  getLoops(block: BlockRV): LoopRV[] {
    return this.invoke("GetLoops", [block], []) as LoopRV[];
  }

  getChildBlocks(blockOrLoop: BlockRV | LoopRV): BlockRV[] {
    return this.invoke("GetChildBlocks", [blockOrLoop], []) as BlockRV[];
  }

  getProducers(block: BlockRV): BlockRV[] {
    return this.invoke("GetProducers", [block], []) as BlockRV[];
  }

  getConsumers(block: BlockRV): BlockRV[] {
    return this.invoke("GetConsumers", [block], []) as BlockRV[];
  }

  // ---- loops -------------------------------------------------------------------------------

  /** Splits a loop; one factor may be `null`/`undefined` and is inferred. */
  split(
    loop: LoopRV,
    factors: ReadonlyArray<number | ExprRV | null | undefined>,
    opts: { preserveUnitIters?: boolean; disablePredication?: boolean } = {},
  ): LoopRV[] {
    return this.invoke("Split", [loop, ...factors.map((f) => f ?? null)], [
      opts.preserveUnitIters ?? true,
      opts.disablePredication ?? false,
    ]) as LoopRV[];
  }

  fuse(...loops: LoopRV[]): LoopRV {
    return this.invoke1("Fuse", loops, [true]) as LoopRV;
  }

  reorder(...loops: LoopRV[]): void {
    this.invoke("Reorder", loops, []);
  }

  /** Binds a loop to a GPU thread axis: "blockIdx.x", "threadIdx.y", "vthread.x", … */
  bind(loop: LoopRV, threadAxis: string): void {
    this.invoke("Bind", [loop], [threadAxis]);
  }

  parallel(loop: LoopRV): void {
    this.invoke("Parallel", [loop], []);
  }

  vectorize(loop: LoopRV): void {
    this.invoke("Vectorize", [loop], []);
  }

  unroll(loop: LoopRV): void {
    this.invoke("Unroll", [loop], []);
  }

  annotate(blockOrLoop: BlockRV | LoopRV, key: string, value: string | number | boolean | ExprRV | readonly (string | number)[]): void {
    this.invoke("Annotate", [blockOrLoop, value as InstructionInput], [key]);
  }

  unannotate(blockOrLoop: BlockRV | LoopRV, key: string): void {
    this.invoke("Unannotate", [blockOrLoop], [key]);
  }

  // ---- data movement -----------------------------------------------------------------------

  cacheRead(block: BlockRV, readBufferIndex: number, scope: StorageScopeName, consumerBlocks: readonly BlockRV[] = []): BlockRV {
    return this.invoke1("CacheRead", [block, consumerBlocks], [readBufferIndex, scope]) as BlockRV;
  }

  cacheWrite(block: BlockRV, writeBufferIndex: number, scope: StorageScopeName, consumerBlocks: readonly BlockRV[] = []): BlockRV {
    return this.invoke1("CacheWrite", [block, consumerBlocks], [writeBufferIndex, scope]) as BlockRV;
  }

  setScope(block: BlockRV, bufferIndex: number, scope: StorageScopeName): void {
    this.invoke("SetScope", [block], [bufferIndex, scope]);
  }

  storageAlign(block: BlockRV, bufferIndex: number, axis: number, factor: number, offset: number): void {
    this.invoke("StorageAlign", [block], [bufferIndex, axis, factor, offset]);
  }

  // ---- compute location --------------------------------------------------------------------

  computeAt(block: BlockRV, loop: LoopRV, preserveUnitLoops = false, index = -1): void {
    this.invoke("ComputeAt", [block, loop], [preserveUnitLoops, index]);
  }

  reverseComputeAt(block: BlockRV, loop: LoopRV, preserveUnitLoops = false, index = -1): void {
    this.invoke("ReverseComputeAt", [block, loop], [preserveUnitLoops, index]);
  }

  computeInline(block: BlockRV): void {
    this.invoke("ComputeInline", [block], []);
  }

  reverseComputeInline(block: BlockRV): void {
    this.invoke("ReverseComputeInline", [block], []);
  }

  // ---- reductions --------------------------------------------------------------------------

  decomposeReduction(block: BlockRV, loop: LoopRV): BlockRV {
    return this.invoke1("DecomposeReduction", [block, loop], []) as BlockRV;
  }

  rfactor(loop: LoopRV, factorAxis: number): BlockRV {
    return this.invoke1("RFactor", [loop], [factorAxis]) as BlockRV;
  }

  // ---- sampling ----------------------------------------------------------------------------

  samplePerfectTile(loop: LoopRV, n: number, maxInnermostFactor = 16, decision?: readonly number[]): ExprRV[] {
    return this.invoke("SamplePerfectTile", [loop], [n, maxInnermostFactor], decision) as ExprRV[];
  }

  sampleCategorical(candidates: readonly number[], probs: readonly number[], decision?: number): ExprRV {
    return this.invoke1("SampleCategorical", [], [candidates, probs], decision) as ExprRV;
  }

  sampleComputeLocation(block: BlockRV, decision?: number): LoopRV {
    return this.invoke1("SampleComputeLocation", [block], [], decision) as LoopRV;
  }

  // ---- the one mechanism -------------------------------------------------------------------

  /**
   * Runs one instruction by kind name: applies it on a forked state, records it, and adopts the
   * result. Used by every primitive method and by trace replay.
   */
  invoke(
    kindName: string,
    inputs: readonly InstructionInput[],
    attrs: readonly InstructionAttr[],
    decision?: Decision,
  ): RV[] {
    const kind = instructionKind(kindName);
    if (kind === undefined) throw new ScheduleUsageError(kindName, `unknown instruction kind "${kindName}"`);
    return this.invokeKind(kind, inputs, attrs, decision);
  }

  invokeKind(
    kind: InstructionKind,
    inputs: readonly InstructionInput[],
    attrs: readonly InstructionAttr[],
    decision?: Decision,
  ): RV[] {
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

  private invoke1(
    kindName: string,
    inputs: readonly InstructionInput[],
    attrs: readonly InstructionAttr[],
    decision?: Decision,
  ): RV {
    return this.invoke(kindName, inputs, attrs, decision)[0]!;
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
