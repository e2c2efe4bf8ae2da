/**
 * What one thread of a lowered kernel does, counted for the latency model: FP32 instructions and
 * flops, global and shared memory instructions with their cost per warp (128-byte lines touched;
 * shared-memory wavefronts with bank conflicts, by the simulator's bank model), barriers and the
 * registers its local buffers need. Loops multiply what they contain; a branch counts with the
 * fraction of sampled points where its condition holds. Per-warp costs are averaged over a few
 * sampled points (loop and block indices drawn from a fixed seed, the lanes of one warp), so the
 * profile is deterministic.
 */
import {
  type DeviceKernel,
  MMA_FILL,
  MMA_STORE,
  PTX_LDMATRIX,
  PTX_MMA,
  WGMMA_COMMIT_GROUP,
  WGMMA_FENCE,
  WGMMA_MMA_ASYNC,
  WGMMA_WAIT_GROUP,
} from "@tessera/codegen";
import { type Buffer, type PrimExpr, type Stmt, type Var, asAsyncCopy, dtypeInfo, elementType, isFloat, lanesOf, mulberry32 } from "@tessera/ir";
import { type Evaluator, evaluate, evaluatorOf } from "./expr-eval.js";
import { findFetchLoop } from "./fetch-loop.js";
import { INACTIVE, WARP, contiguousCost, globalLines, laneThreadIndex, sharedWavefronts } from "./warp-cost.js";

export interface KernelProfile {
  readonly name: string;
  readonly threadsPerBlock: number;
  readonly blocks: number;
  readonly sharedBytes: number;
  /** Per thread: warp-wide FP instructions (a fused multiply-add is one), and flops. */
  readonly fpInstructions: number;
  readonly flops: number;
  /**
   * Per warp: tensor-core work of its mma.sync and wgmma instructions, in flops at the fp16 rate
   * (a tf32 MMA, at half that rate, counts twice its flops; a wgmma counts the warp's quarter of
   * its warpgroup's m64 tile).
   */
  readonly tensorFlops: number;
  /** Per thread: warp-wide tensor-core instructions (mma.sync, wgmma). */
  readonly tensorInstructions: number;
  /** Per thread: global and shared memory instructions. */
  readonly memoryInstructions: number;
  /** Per warp: 128-byte lines its global accesses touch (L1 wavefronts). */
  readonly globalLines: number;
  /** Per warp: shared-memory wavefronts, and those it would need without bank conflicts. */
  readonly sharedWavefronts: number;
  readonly idealSharedWavefronts: number;
  readonly barriers: number;
  /** Elements of the local (register) buffers alive at once, at most. */
  readonly localElements: number;
  /** The largest local buffer: independent accumulators, a measure of instruction-level parallelism. */
  readonly largestLocalBuffer: number;
  /** Bytes of the kernel's buffer arguments (what must come from or go to DRAM at least once). */
  readonly globalFootprintBytes: number;
  readonly minBlocksPerSM: number | undefined;
  /** Rounds of global loads a thread waits for: iterations of the fetch loop (fetch-loop.ts), 1 without one. */
  readonly fetchRounds: number;
  /** The share of those loads prefetched a round ahead (their latency overlaps a round's work; fetch-loop.ts). */
  readonly prefetchedShare: number;
  /**
   * FP instructions in one iteration of the innermost rolled loop around them (a loop neither
   * unrolled nor expanded), as a geometric mean weighted by the instructions: how much
   * straight-line code the compiler gets to schedule (1 when every FP instruction sits alone in a
   * rolled loop; the whole register-tile update when the reduction step is unrolled).
   */
  readonly straightLineFp: number;
}

/** The m, n and k of an mma.sync shape such as "m16n8k16". */
const MMA_SHAPE = /^m(\d+)n(\d+)k(\d+)$/;

/** The warps of a warpgroup (a wgmma's m64 tile is 16 rows each), and the bytes of one shared-memory wavefront. */
const WARPS_PER_WARPGROUP = 4;
const SHARED_WAVEFRONT_BYTES = 128;

/** Sampled points per access and per condition. */
const SAMPLES = 8;

const THREAD_TAGS = ["threadIdx.x", "threadIdx.y", "threadIdx.z"] as const;

/** A rolled loop being walked (or the kernel body): the FP instructions directly in one of its iterations. */
interface RolledFrame {
  /** Multiplicity of one iteration of the loop. */
  readonly iteration: number;
  /** FP instructions executed directly in the loop (in no rolled loop nested in it), in all. */
  fp: number;
}

function bytesOfElement(buffer: Buffer): number {
  const info = dtypeInfo(elementType(buffer.dtype));
  return Math.max(1, info.bits / 8) * lanesOf(buffer.dtype);
}

function elementsOf(buffer: Buffer): number {
  return buffer.shape.reduce((n, d) => n * (d.kind === "IntImm" ? d.value : 1), 1);
}

interface Access {
  readonly buffer: Buffer;
  /** Element index of each lane's first element. */
  readonly index: PrimExpr;
  readonly widthBytes: number;
  readonly kind: "load" | "store";
}

class ProfileWalker {
  fpInstructions = 0;
  flops = 0;
  tensorFlops = 0;
  tensorInstructions = 0;
  memoryInstructions = 0;
  globalLines = 0;
  sharedWavefronts = 0;
  idealSharedWavefronts = 0;
  barriers = 0;
  localElements = 0;
  largestLocalBuffer = 0;
  #liveLocal = 0;
  #multiplicity = 1;
  readonly #rolled: RolledFrame[] = [{ iteration: 1, fp: 0 }];
  /** Σ over rolled frames of fp · log2(FP instructions per iteration), and Σ fp. */
  #straightLineLog = 0;
  #straightLineWeight = 0;
  readonly #envs: Map<Var, number>[] = Array.from({ length: SAMPLES }, () => new Map());
  readonly #random = mulberry32(0x7e55e7a);
  /** Thread index variables by tag, as the kernel's thread_extent attributes name them. */
  readonly #threadVars = new Map<string, Var>();
  readonly #block: readonly [number, number, number];
  readonly #warps: number;
  /** `laneThreadIndex` of (warp, lane) at `warp * WARP + lane` for the warps the samples use; null past the block. */
  readonly #laneIndices: (readonly [number, number, number] | null)[] = [];
  /** The evaluators of this kernel's expressions (expr-eval.ts), built once each. */
  readonly #evaluators = new Map<PrimExpr, Evaluator>();

  constructor(kernel: DeviceKernel) {
    this.#block = kernel.launch.block;
    this.#warps = Math.ceil((this.#block[0] * this.#block[1] * this.#block[2]) / WARP);
    for (let warp = 0; warp < Math.min(SAMPLES, this.#warps); warp++)
      for (let lane = 0; lane < WARP; lane++) this.#laneIndices.push(laneThreadIndex(warp, lane, this.#block) ?? null);
  }

  /** Sets the thread variables of sample `s` to lane `lane` of the sample's warp; false for a lane past the block. */
  #placeLane(s: number, lane: number): boolean {
    const index = this.#laneIndices[(s % this.#warps) * WARP + lane]!;
    if (index === null) return false;
    const env = this.#envs[s]!;
    for (let axis = 0; axis < 3; axis++) {
      const v = this.#threadVars.get(THREAD_TAGS[axis]!);
      if (v !== undefined) env.set(v, index[axis]!);
    }
    return true;
  }

  /** The fraction of sampled (point, lane) pairs where `condition` holds; 1 when it cannot be evaluated. */
  #fraction(condition: PrimExpr): number {
    const evaluateCondition = evaluatorOf(condition, this.#evaluators);
    let active = 0;
    let holds = 0;
    for (let s = 0; s < SAMPLES; s++) {
      for (let lane = 0; lane < WARP; lane++) {
        if (!this.#placeLane(s, lane)) continue;
        const v = evaluateCondition(this.#envs[s]!);
        if (v === undefined) return 1;
        active++;
        if (v !== 0) holds++;
      }
    }
    return active === 0 ? 0 : holds / active;
  }

  #access(a: Access): void {
    const scope = a.buffer.scope;
    if (scope === "local" || scope === "warp") return;
    this.memoryInstructions += this.#multiplicity;
    const elementBytes = bytesOfElement(a.buffer) / lanesOf(a.buffer.dtype);
    let lines = 0;
    let wavefronts = 0;
    let ideal = 0;
    const addresses = new Array<number>(WARP);
    const evaluateIndex = evaluatorOf(a.index, this.#evaluators);
    for (let s = 0; s < SAMPLES; s++) {
      let known = true;
      for (let lane = 0; lane < WARP; lane++) {
        if (!this.#placeLane(s, lane)) {
          addresses[lane] = INACTIVE;
          continue;
        }
        const index = evaluateIndex(this.#envs[s]!);
        if (index === undefined) known = false;
        addresses[lane] = index === undefined ? INACTIVE : Math.max(0, index * elementBytes);
      }
      if (!known || addresses.every((x) => x === INACTIVE)) {
        const best = contiguousCost(a.widthBytes);
        lines += best;
        wavefronts += best;
        ideal += best;
      } else if (scope === "global") lines += globalLines(addresses, a.widthBytes);
      else {
        const cost = sharedWavefronts(addresses, a.widthBytes, a.kind);
        wavefronts += cost.wavefronts;
        ideal += cost.ideal;
      }
    }
    if (scope === "global") this.globalLines += (this.#multiplicity * lines) / SAMPLES;
    else {
      this.sharedWavefronts += (this.#multiplicity * wavefronts) / SAMPLES;
      this.idealSharedWavefronts += (this.#multiplicity * ideal) / SAMPLES;
    }
  }

  /** A load or store of `buffer` at `index` (a Ramp for a vector access). */
  #bufferAccess(buffer: Buffer, indices: readonly PrimExpr[], kind: "load" | "store"): void {
    for (const i of indices) this.#value(i, false);
    const index = indices[0];
    if (index === undefined) return;
    const elementBytes = bytesOfElement(buffer);
    if (index.kind === "Ramp") {
      if (index.stride.kind === "IntImm" && index.stride.value === 1) {
        this.#access({ buffer, index: index.base, widthBytes: elementBytes * index.lanes, kind });
        return;
      }
      for (let lane = 0; lane < index.lanes; lane++) {
        const at: PrimExpr = {
          kind: "Binary",
          op: "add",
          dtype: "int32",
          a: index.base,
          b: { kind: "Binary", op: "mul", dtype: "int32", a: index.stride, b: { kind: "IntImm", dtype: "int32", value: lane } },
        };
        this.#access({ buffer, index: at, widthBytes: elementBytes, kind });
      }
      return;
    }
    this.#access({ buffer, index, widthBytes: elementBytes, kind });
  }

  /** Counts `count` FP instructions (already multiplied by the multiplicity). */
  #fp(count: number): void {
    this.fpInstructions += count;
    this.#rolled[this.#rolled.length - 1]!.fp += count;
  }

  #closeRolled(frame: RolledFrame): void {
    if (frame.fp <= 0) return;
    const perIteration = frame.fp / frame.iteration;
    this.#straightLineLog += frame.fp * Math.log2(Math.max(1, perIteration));
    this.#straightLineWeight += frame.fp;
  }

  /** Closes the kernel body's frame: the weighted geometric mean of FP instructions per rolled iteration (once, after the walk). */
  finishStraightLine(): number {
    this.#closeRolled(this.#rolled[0]!);
    this.#rolled[0]!.fp = 0;
    return this.#straightLineWeight === 0 ? 1 : 2 ** (this.#straightLineLog / this.#straightLineWeight);
  }

  #isFloatMul(e: PrimExpr): e is PrimExpr & { kind: "Binary" } {
    return e.kind === "Binary" && e.op === "mul" && isFloat(e.dtype);
  }

  /** Counts the instructions of `e`; `arithmetic` false for index expressions (integer work is not modelled). */
  #value(e: PrimExpr, arithmetic = true): void {
    const m = this.#multiplicity;
    switch (e.kind) {
      case "Binary": {
        if (arithmetic && isFloat(e.dtype)) {
          const lanes = lanesOf(e.dtype);
          const fusedWith = (e.op === "add" || e.op === "sub") && (this.#isFloatMul(e.a) || this.#isFloatMul(e.b));
          this.#fp(m * lanes);
          this.flops += m * lanes * (fusedWith ? 2 : 1);
          if (fusedWith) {
            const [mul, other] = this.#isFloatMul(e.a) ? [e.a, e.b] : [e.b as PrimExpr & { kind: "Binary" }, e.a];
            this.#value(mul.a, arithmetic);
            this.#value(mul.b, arithmetic);
            this.#value(other, arithmetic);
            return;
          }
        }
        this.#value(e.a, arithmetic);
        this.#value(e.b, arithmetic);
        return;
      }
      case "BufferLoad":
        this.#bufferAccess(e.buffer, e.indices, "load");
        return;
      case "Select":
        if (arithmetic && isFloat(e.dtype)) this.#fp(m * lanesOf(e.dtype));
        this.#value(e.condition, false);
        this.#value(e.trueValue, arithmetic);
        this.#value(e.falseValue, arithmetic);
        return;
      case "Cast":
        if (arithmetic && isFloat(e.dtype)) this.#fp(m * lanesOf(e.dtype));
        this.#value(e.value, arithmetic);
        return;
      case "Not":
        this.#value(e.a, false);
        return;
      case "Ramp":
        this.#value(e.base, false);
        return;
      case "Broadcast":
        this.#value(e.value, arithmetic);
        return;
      case "Let":
        this.#value(e.value, arithmetic);
        this.#value(e.body, arithmetic);
        return;
      case "Call":
        this.#call(e, arithmetic);
        return;
      default:
        return;
    }
  }

  #call(e: PrimExpr & { kind: "Call" }, arithmetic: boolean): void {
    if (e.op === "tvm_storage_sync") {
      this.barriers += this.#multiplicity;
      return;
    }
    const copy = asAsyncCopy(e);
    if (copy !== undefined) {
      // cp.async: a global read and a shared write of `bytes` per thread, in one instruction.
      const as = (data: Var, scope: "global" | "shared"): Buffer => ({
        kind: "Buffer",
        name: data.name,
        dtype: copy.dtype,
        shape: [],
        strides: [],
        elemOffset: { kind: "IntImm", dtype: "int32", value: 0 },
        scope,
        data,
        dataAlignment: 16,
        offsetFactor: 0,
      });
      this.#access({ buffer: as(copy.src, "global"), index: copy.srcOffset, widthBytes: copy.bytes, kind: "load" });
      this.#access({ buffer: as(copy.dst, "shared"), index: copy.dstOffset, widthBytes: copy.bytes, kind: "store" });
      this.memoryInstructions -= this.#multiplicity;
      return;
    }
    if (this.#warpOperation(e)) return;
    if (arithmetic && isFloat(e.dtype)) this.#fp(this.#multiplicity * lanesOf(e.dtype));
    for (const a of e.args) this.#value(a, arithmetic);
  }

  /**
   * The warp-wide tensor-core operations (their operands are registers and pointers, not loads):
   * an mma.sync is tensor-core work; an ldmatrix of n 8×8 matrices n shared wavefronts (the
   * conflict-free count: the tensor-core rule pads or XOR-swizzles its shared rows); a wgmma
   * (issued by each warp of a warpgroup for the group's m64nNkK tile) the warp's quarter of the tile
   * as tensor-core work and its operands' shared wavefronts (its 16 rows of A, a quarter of B: the
   * tensor cores read the 128B-swizzled tiles conflict-free); a 16×16 store one global line per
   * row; a fill, and wgmma's fence, commit and wait, nothing. Returns whether `e` was one.
   */
  #warpOperation(e: PrimExpr & { kind: "Call" }): boolean {
    const m = this.#multiplicity;
    switch (e.op) {
      case PTX_MMA: {
        const shape = e.args[0]?.kind === "StringImm" ? MMA_SHAPE.exec(e.args[0].value) : null;
        const flops = shape === null ? 0 : 2 * Number(shape[1]) * Number(shape[2]) * Number(shape[3]);
        const tf32 = e.args[3]?.kind === "StringImm" && e.args[3].value === "tf32";
        this.tensorInstructions += m;
        this.tensorFlops += m * flops * (tf32 ? 2 : 1);
        this.flops += (m * flops) / WARP;
        return true;
      }
      case PTX_LDMATRIX: {
        const matrices = e.args[1]?.kind === "IntImm" ? e.args[1].value : 4;
        this.memoryInstructions += m;
        this.sharedWavefronts += m * matrices;
        this.idealSharedWavefronts += m * matrices;
        return true;
      }
      case MMA_STORE: {
        const rows = e.args[0]?.kind === "IntImm" ? e.args[0].value : 16;
        this.memoryInstructions += m * 4;
        this.globalLines += m * rows;
        return true;
      }
      case WGMMA_MMA_ASYNC: {
        const shape = e.args[0]?.kind === "StringImm" ? MMA_SHAPE.exec(e.args[0].value) : null;
        if (shape === null) return false;
        const [n, k] = [Number(shape[2]), Number(shape[3])];
        const rows = Number(shape[1]) / WARPS_PER_WARPGROUP;
        const tf32 = e.args[1]?.kind === "StringImm" && e.args[1].value === "tf32";
        const flops = 2 * rows * n * k;
        const elementBytes = tf32 ? 4 : 2;
        const sharedBytes = (rows * k + (k * n) / WARPS_PER_WARPGROUP) * elementBytes;
        this.tensorInstructions += m;
        this.tensorFlops += m * flops * (tf32 ? 2 : 1);
        this.flops += (m * flops) / WARP;
        this.sharedWavefronts += (m * sharedBytes) / SHARED_WAVEFRONT_BYTES;
        this.idealSharedWavefronts += (m * sharedBytes) / SHARED_WAVEFRONT_BYTES;
        return true;
      }
      case MMA_FILL:
      case WGMMA_FENCE:
      case WGMMA_COMMIT_GROUP:
      case WGMMA_WAIT_GROUP:
        return true;
      default:
        return false;
    }
  }

  #withMultiplicity(factor: number, body: () => void): void {
    const saved = this.#multiplicity;
    this.#multiplicity = saved * factor;
    body();
    this.#multiplicity = saved;
  }

  #bindEach(v: Var, value: (env: Map<Var, number>) => number | undefined, body: () => void): void {
    for (const env of this.#envs) {
      const x = value(env);
      if (x === undefined) env.delete(v);
      else env.set(v, x);
    }
    body();
    for (const env of this.#envs) env.delete(v);
  }

  stmt(s: Stmt): void {
    switch (s.kind) {
      case "SeqStmt":
        for (const t of s.seq) this.stmt(t);
        return;
      case "BufferStore":
        this.#value(s.value);
        this.#bufferAccess(s.buffer, s.indices, "store");
        return;
      case "Evaluate":
        this.#value(s.value);
        return;
      case "IfThenElse": {
        this.#value(s.condition, false);
        const p = this.#fraction(s.condition);
        if (p > 0) this.#withMultiplicity(p, () => this.stmt(s.thenCase));
        const elseCase = s.elseCase;
        if (elseCase !== undefined && p < 1) this.#withMultiplicity(1 - p, () => this.stmt(elseCase));
        return;
      }
      case "For": {
        const min = evaluate(s.min, this.#envs[0]!) ?? 0;
        const extent = Math.max(0, evaluate(s.extent, this.#envs[0]!) ?? 1);
        if (extent === 0) return;
        // Unrolled loops (expanded or `#pragma unroll`) and vectorized ones are straight-line code;
        // thread and block loops have been replaced by their indices by now.
        const rolled = s.forKind === "serial" || s.forKind === "parallel";
        const frame: RolledFrame | undefined = rolled ? { iteration: this.#multiplicity * extent, fp: 0 } : undefined;
        if (frame !== undefined) this.#rolled.push(frame);
        this.#bindEach(
          s.loopVar,
          () => min + Math.floor(this.#random() * extent),
          () => this.#withMultiplicity(extent, () => this.stmt(s.body)),
        );
        if (frame !== undefined) this.#closeRolled(this.#rolled.pop()!);
        return;
      }
      case "LetStmt":
        this.#value(s.value, false);
        this.#bindEach(s.variable, evaluatorOf(s.value, this.#evaluators), () => this.stmt(s.body));
        return;
      case "Allocate": {
        const scope = s.buffer.scope;
        if (scope !== "local" && scope !== "warp") {
          this.stmt(s.body);
          return;
        }
        const elements = elementsOf(s.buffer) * lanesOf(s.buffer.dtype);
        this.largestLocalBuffer = Math.max(this.largestLocalBuffer, elements);
        this.#liveLocal += elements;
        this.localElements = Math.max(this.localElements, this.#liveLocal);
        this.stmt(s.body);
        this.#liveLocal -= elements;
        return;
      }
      case "DeclBuffer":
        this.stmt(s.body);
        return;
      case "AttrStmt": {
        const v = s.node;
        if (s.key === "thread_extent" && v !== undefined && v.kind === "Var") {
          if (v.name.startsWith("threadIdx.")) this.#threadVars.set(v.name, v);
          else if (!this.#envs[0]!.has(v)) {
            // A block index: a random block per sample, for the whole kernel.
            const extent = Math.max(1, evaluate(s.value, this.#envs[0]!) ?? 1);
            for (const env of this.#envs) env.set(v, Math.floor(this.#random() * extent));
          }
        }
        this.stmt(s.body);
        return;
      }
      case "BlockRealize":
        this.stmt(s.block.body);
        return;
      case "While":
        // An unknown trip count: the body is profiled once, as a loop of unknown extent.
        this.#value(s.condition, false);
        this.stmt(s.body);
        return;
      default:
        return;
    }
  }
}

export function profileKernel(kernel: DeviceKernel): KernelProfile {
  const walker = new ProfileWalker(kernel);
  walker.stmt(kernel.body);
  const fetchLoop = findFetchLoop(kernel.body, (e) => evaluate(e, new Map()));
  const { grid, block } = kernel.launch;
  return {
    name: kernel.name,
    threadsPerBlock: block[0] * block[1] * block[2],
    blocks: grid[0] * grid[1] * grid[2],
    sharedBytes: kernel.sharedBytes + kernel.launch.dynamicSharedBytes,
    fpInstructions: walker.fpInstructions,
    flops: walker.flops,
    tensorFlops: walker.tensorFlops,
    tensorInstructions: walker.tensorInstructions,
    memoryInstructions: walker.memoryInstructions,
    globalLines: walker.globalLines,
    sharedWavefronts: walker.sharedWavefronts,
    idealSharedWavefronts: walker.idealSharedWavefronts,
    barriers: walker.barriers,
    localElements: walker.localElements,
    largestLocalBuffer: walker.largestLocalBuffer,
    globalFootprintBytes: kernel.params.reduce((sum, p) => sum + (p.kind === "buffer" ? elementsOf(p.buffer) * bytesOfElement(p.buffer) : 0), 0),
    minBlocksPerSM: kernel.launch.minBlocksPerSM,
    fetchRounds: fetchLoop?.rounds ?? 1,
    prefetchedShare: fetchLoop?.prefetchedShare ?? 0,
    straightLineFp: walker.finishStraightLine(),
  };
}
