/**
 * The precision a user asks of a function's float32 GEMMs, as PyTorch's `fp32_precision`
 * ("ieee" | "tf32") and CUTLASS's fast-fp32 GEMMs (3xTF32) name it: "ieee" leaves the function as
 * it is; "tf32" and "3xtf32" rewrite each float32 GEMM block `C[i, j] += A[i, k] · B[k, j]` so that
 * the function itself says what a tf32 tensor core computes (TVM has no such request):
 *
 * - "tf32": stages `A_tf32 = tf32(A)` and `B_tf32 = tf32(B)` (round to nearest, `T.tf32_round`),
 *   the GEMM summing their products in float32 (cuBLAS's TF32 mode);
 * - "3xtf32": stages `X_hi = tf32(X)` and `X_lo = tf32(X − X_hi)` of both operands, the GEMM summing
 *   `(A_lo·B_hi + A_hi·B_lo) + A_hi·B_hi` per k (docs/architecture/tf32x3.md), k in chunks of
 *   `chunk` whose sums are added into the float32 accumulator with ordinary adds (`rfactor` of the
 *   chunk loop: the chunk block "<C>_rf" and the main block "<C>").
 *
 * The rewrite is what makes a tensor core eligible: MultiLevelTilingTensorCore offers tf32 intrinsic
 * groups only to a GEMM whose operands are such stages, so a float32 GEMM nobody asked about keeps
 * IEEE float32 arithmetic (the course's workloads). The rewritten function is another workload (its
 * own hash and tuning records), and every executor, simulator and checker computes its rounding.
 */
import {
  type Block,
  type Buffer,
  type BufferLoad,
  type BufferRegion,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  IRMutator,
  add,
  block,
  blockRealize,
  bufferLoad,
  bufferStore,
  declBuffer,
  forEachBlockRealize,
  forLoop,
  iterVar,
  mul,
  range,
  rangeFromExtent,
  seq,
  sub,
  tf32Round,
  variable,
  withBody,
} from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { matmulOperands } from "../rules/multi-level-tiling-tensor-core/intrin-group.js";
import { stageOf } from "../rules/multi-level-tiling-tensor-core/operand-stages.js";

export type Fp32Precision = "ieee" | "tf32" | "3xtf32";

export const FP32_PRECISIONS: readonly Fp32Precision[] = ["ieee", "tf32", "3xtf32"];

/** The default k chunk of a 3xTF32 GEMM: 32, the shared k stage of the hand kernels (0.22× SGEMM's error at 2048³). */
export const DEFAULT_TF32X3_CHUNK = 32;

export interface Fp32PrecisionOptions {
  /** 3xTF32's k chunk (a positive divisor of every rewritten GEMM's k extent). */
  readonly chunk?: number;
}

/** Which part of a float32 operand a stage keeps. */
type Part = "tf32" | "hi" | "lo";

/** Checks a requested precision, naming the accepted ones. */
export function parseFp32Precision(text: string): Fp32Precision {
  if ((FP32_PRECISIONS as readonly string[]).includes(text)) return text as Fp32Precision;
  throw new RangeError(`fp32 precision must be one of ${FP32_PRECISIONS.join(", ")}, got "${text}"`);
}

/** `func` with its float32 GEMMs computed in `precision` (the module comment); "ieee" returns `func`. */
export function withFp32Precision(func: PrimFunc, precision: Fp32Precision, opts: Fp32PrecisionOptions = {}): PrimFunc {
  if (precision === "ieee") return func;
  const gemms = float32Gemms(func);
  if (gemms.length === 0) return func;
  const chunk = opts.chunk ?? DEFAULT_TF32X3_CHUNK;
  if (precision === "3xtf32")
    for (const g of gemms)
      if (!Number.isInteger(chunk) || chunk < 1 || g.kExtent % chunk !== 0)
        throw new RangeError(`withFp32Precision: the 3xTF32 chunk ${chunk} does not divide the k extent ${g.kExtent} of block "${g.block.name}"`);

  const names = new Set<string>();
  forEachBlockRealize(func.body, (r) => {
    names.add(r.block.name);
    for (const b of [...r.block.allocBuffers, ...r.block.writes.map((w) => w.buffer)]) names.add(b.name);
  });
  for (const b of func.bufferMap.values()) names.add(b.name);
  const fresh = (base: string) => {
    let name = base;
    for (let k = 1; names.has(name); k++) name = `${base}_${k}`;
    names.add(name);
    return name;
  };

  // One stage per operand buffer and part, shared by every GEMM that reads the buffer.
  const stages = new Map<Buffer, Map<Part, Stage>>();
  const rewritten = new Map<Block, { block: Block; stages: Stage[] }>();
  for (const g of gemms) {
    const used: Stage[] = [];
    const stageOf = (x: Buffer, part: Part) => {
      const parts = stages.get(x) ?? new Map<Part, Stage>();
      stages.set(x, parts);
      let s = parts.get(part);
      if (s === undefined) {
        const buffer = declBuffer(fresh(`${x.name}_${part}`), x.shape, "float32");
        s = { buffer, nest: stageNest(x, buffer, part, buffer.name) };
        parts.set(part, s);
      }
      used.push(s);
      return s.buffer;
    };
    rewritten.set(g.block, { block: precision === "tf32" ? tf32Block(g, stageOf) : tf32x3Block(g, stageOf), stages: used });
  }
  const body = new GemmRewriter(rewritten).rewriteRoot(func);
  const out = withBody(func, body);
  return precision === "3xtf32"
    ? chunked(
        out,
        gemms.map((g) => rewritten.get(g.block)!.block.name),
        chunk,
      )
    : out;
}

/** A stage's buffer and its root-level loop nest. */
interface Stage {
  readonly buffer: Buffer;
  readonly nest: Stmt;
}

interface Float32Gemm {
  readonly block: Block;
  readonly a: BufferLoad;
  readonly b: BufferLoad;
  readonly kExtent: number;
}

/**
 * The float32 GEMM blocks of `func` (matmulOperands' form, every buffer float32, no casts) whose
 * operands are not both tf32 stages already (a second request changes nothing).
 */
function float32Gemms(func: PrimFunc): Float32Gemm[] {
  const writers = new Map<Buffer, Block>();
  forEachBlockRealize(func.body, (r) => {
    for (const w of r.block.writes) writers.set(w.buffer, r.block);
  });
  const isStage = (b: Buffer) => {
    const writer = writers.get(b);
    return writer !== undefined && stageOf(writer) !== undefined;
  };
  const out: Float32Gemm[] = [];
  forEachBlockRealize(func.body, (r) => {
    const m = matmulOperands(r.block);
    if (m === undefined || m.casts || r.block.body.kind !== "BufferStore") return;
    if (![r.block.body.buffer, m.a.buffer, m.b.buffer].every((b) => b.dtype === "float32") || (isStage(m.a.buffer) && isStage(m.b.buffer))) return;
    out.push({ block: r.block, a: m.a, b: m.b, kExtent: m.extents[2] });
  });
  return out;
}

/** `part[r, c] = f(x[r, c])` over x's whole shape, as a root-level loop nest. */
function stageNest(x: Buffer, part: Buffer, which: Part, name: string): Stmt {
  const loops = x.shape.map((_, d) => variable(`ax${d}`));
  const vars = x.shape.map((_, d) => variable(`v${d}`));
  const load = bufferLoad(x, vars);
  const value = which === "lo" ? tf32Round(sub(load, tf32Round(load))) : tf32Round(load);
  const at = (buffer: Buffer): BufferRegion => ({ buffer, region: vars.map((v) => range(v, 1)) });
  const stage = block({
    name,
    iterVars: vars.map((v, d) => iterVar(v, rangeFromExtent(x.shape[d]!), "spatial")),
    reads: [at(x)],
    writes: [at(part)],
    body: bufferStore(part, value, vars),
  });
  let nest: Stmt = blockRealize(loops, true, stage);
  for (let d = loops.length - 1; d >= 0; d--) nest = forLoop(loops[d]!, x.shape[d]!, nest);
  return nest;
}

type StageOf = (x: Buffer, part: Part) => Buffer;

/** `C += A_tf32 · B_tf32`. */
function tf32Block(g: Float32Gemm, stageOf: StageOf): Block {
  const [a, b] = [stageOf(g.a.buffer, "tf32"), stageOf(g.b.buffer, "tf32")];
  return withProduct(g, mul(bufferLoad(a, g.a.indices), bufferLoad(b, g.b.indices)), [
    [a, g.a.buffer],
    [b, g.b.buffer],
  ]);
}

/** `C += (A_lo · B_hi + A_hi · B_lo) + A_hi · B_hi`: the small products first (the corpus's 3xTF32 order). */
function tf32x3Block(g: Float32Gemm, stageOf: StageOf): Block {
  const [aHi, aLo, bHi, bLo] = [stageOf(g.a.buffer, "hi"), stageOf(g.a.buffer, "lo"), stageOf(g.b.buffer, "hi"), stageOf(g.b.buffer, "lo")];
  const [ah, al] = [bufferLoad(aHi, g.a.indices), bufferLoad(aLo, g.a.indices)];
  const [bh, bl] = [bufferLoad(bHi, g.b.indices), bufferLoad(bLo, g.b.indices)];
  return withProduct(g, add(add(mul(al, bh), mul(ah, bl)), mul(ah, bh)), [
    [aLo, g.a.buffer],
    [bHi, g.b.buffer],
    [aHi, g.a.buffer],
    [bLo, g.b.buffer],
  ]);
}

/**
 * The GEMM block with `product` in place of A·B; its reads: the other reads, then `stageReads`
 * (each stage with its operand's region) in the order the product reads them, which is the order
 * tensorize pairs them with an intrinsic description's buffers.
 */
function withProduct(g: Float32Gemm, product: PrimExpr, stageReads: readonly (readonly [stage: Buffer, operand: Buffer])[]): Block {
  const store = g.block.body as Extract<Stmt, { kind: "BufferStore" }>;
  const value = store.value as Extract<PrimExpr, { kind: "Binary" }>;
  const acc = value.a.kind === "BufferLoad" && value.a.buffer === store.buffer ? value.a : value.b;
  const operands = new Set(stageReads.map(([, operand]) => operand));
  const regionOf = (operand: Buffer) => g.block.reads.find((r) => r.buffer === operand)!.region;
  return {
    ...g.block,
    reads: [...g.block.reads.filter((r) => !operands.has(r.buffer)), ...stageReads.map(([buffer, operand]) => ({ buffer, region: regionOf(operand) }))],
    body: bufferStore(store.buffer, add(acc, product), store.indices),
  };
}

/**
 * Replaces the GEMM blocks and puts each stage nest (and its buffer) in the root block just before
 * the first root-level statement that holds a GEMM reading it: after whatever computes the operand.
 */
class GemmRewriter extends IRMutator {
  readonly #placed = new Set<Stage>();
  constructor(readonly gemms: ReadonlyMap<Block, { block: Block; stages: readonly Stage[] }>) {
    super();
  }

  override visitBlockRealize(s: Extract<Stmt, { kind: "BlockRealize" }>): Stmt {
    const replacement = this.gemms.get(s.block);
    if (replacement !== undefined) return { ...s, block: replacement.block };
    return super.visitBlockRealize(s);
  }

  /** The root block realize, rewritten. */
  rewriteRoot(func: PrimFunc): Stmt {
    const root = func.body;
    if (root.kind !== "BlockRealize" || root.block.iterVars.length !== 0)
      throw new RangeError(`withFp32Precision: function ${String(func.attrs["global_symbol"] ?? "")} has no root block`);
    const top = root.block.body.kind === "SeqStmt" ? root.block.body.seq : [root.block.body];
    const body: Stmt[] = [];
    for (const stmt of top) {
      forEachBlockRealize(stmt, (r) => {
        for (const stage of this.gemms.get(r.block)?.stages ?? [])
          if (!this.#placed.has(stage)) {
            this.#placed.add(stage);
            body.push(stage.nest);
          }
      });
      body.push(this.visitStmt(stmt));
    }
    const buffers = [...this.#placed].map((x) => x.buffer);
    return { ...root, block: { ...root.block, allocBuffers: [...root.block.allocBuffers, ...buffers], body: seq(body) } };
  }
}

/** Splits each 3xTF32 GEMM's k loop into chunks and factors the chunk loop out (rfactor): "<C>_rf" sums a chunk, "<C>" adds the chunks. */
function chunked(func: PrimFunc, gemms: readonly string[], chunk: number): PrimFunc {
  const sch = new Schedule(func);
  for (const name of gemms) {
    const gemm = sch.getBlock(name);
    const [ko] = sch.split(sch.getLoops(gemm).at(-1)!, [null, chunk]);
    sch.rfactor(ko!, 0);
  }
  return sch.func;
}
