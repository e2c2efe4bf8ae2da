/**
 * Pass 7, `flattenBuffer` (TVM FlattenBuffer): every buffer (parameters, allocations, declared
 * views) becomes one-dimensional, `shape = [elements]`, and every access uses one index: the
 * element offset plus the indices weighted by the strides (row-major when the buffer has none).
 * A flat buffer keeps its name, scope and `data` variable, so parameters stay the same pointers.
 * Requires lowerOpaqueBlock.
 *
 * TVM keeps the parameter buffers as declared and accesses them through flat aliases declared at
 * the top of the body (`A_1 = T.decl_buffer(256, data=A.data)`); `paramAliases` does that. The
 * pipeline flattens parameters in place instead: kernel parameters are then flat buffers, which
 * splitHostDevice and the code generators read (docs/architecture/tvm-deviations-lowering.md).
 */
import {
  Analyzer,
  type Buffer,
  type BufferLoad,
  type BufferStore,
  IRMutator,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  type Var,
  add,
  intImm,
  isConstInt,
  mul,
  sub,
  withBuffer,
} from "@tessera/ir";
import type { Pass } from "../pass.js";
import { requireNoBlocks } from "../util/block-checks.js";

const PASS = "flattenBuffer";

/** The strides of `buffer`: its own, or compact row-major ones. */
export function stridesOf(buffer: Buffer): PrimExpr[] {
  if (buffer.strides.length > 0) return [...buffer.strides];
  const strides: PrimExpr[] = new Array(buffer.shape.length);
  let acc: PrimExpr = intImm(1, buffer.shape[0]?.dtype ?? "int32");
  for (let d = buffer.shape.length - 1; d >= 0; d--) {
    strides[d] = acc;
    acc = mul(acc, buffer.shape[d]!);
  }
  return strides;
}

function isFlat(buffer: Buffer): boolean {
  return buffer.shape.length === 1 && buffer.strides.length === 0 && isConstInt(buffer.elemOffset, 0);
}

/** Elements of storage `buffer` spans: offset + Σ (shape[d] - 1) · stride[d] + 1 (0 when empty). */
function flatSize(buffer: Buffer, analyzer: Analyzer): PrimExpr {
  if (buffer.strides.length === 0) {
    const product = buffer.shape.reduce<PrimExpr>((acc, n) => mul(acc, n), intImm(1, buffer.shape[0]?.dtype ?? "int32"));
    return analyzer.simplify(add(buffer.elemOffset, product));
  }
  const strides = stridesOf(buffer);
  const span = buffer.shape.reduce<PrimExpr>((acc, n, d) => add(acc, mul(sub(n, 1), strides[d]!)), intImm(1, "int32"));
  return analyzer.simplify(add(buffer.elemOffset, span));
}

class Flattener extends IRMutator {
  private readonly flat = new Map<Buffer, Buffer>();
  private readonly analyzer = new Analyzer();

  override mapBuffer(b: Buffer): Buffer {
    if (isFlat(b)) return b;
    let f = this.flat.get(b);
    if (f === undefined) {
      f = withBuffer(b, { shape: [flatSize(b, this.analyzer)], strides: [], elemOffset: intImm(0, b.elemOffset.dtype) });
      this.flat.set(b, f);
    }
    return f;
  }

  /** The one index of `buffer[indices]` in its flat version. */
  private flatIndex(buffer: Buffer, indices: readonly PrimExpr[]): PrimExpr[] {
    if (isFlat(buffer)) return [...indices];
    const strides = stridesOf(buffer);
    const terms = indices.map((i, d) => (isConstInt(strides[d]!, 1) ? i : mul(i, strides[d]!)));
    const sum = terms.reduce((acc, t) => add(acc, t), buffer.elemOffset);
    return [this.analyzer.simplify(sum)];
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const visited = super.visitBufferLoad(e) as BufferLoad;
    if (isFlat(e.buffer)) return visited;
    return { ...visited, indices: this.flatIndex(e.buffer, visited.indices) };
  }

  override visitBufferStore(s: BufferStore): Stmt {
    const visited = super.visitBufferStore(s) as BufferStore;
    if (isFlat(s.buffer)) return visited;
    return { ...visited, indices: this.flatIndex(s.buffer, visited.indices) };
  }
}

export interface FlattenBufferOptions {
  /** Keep parameter buffers as declared and access them through flat aliases (TVM's form). */
  readonly paramAliases?: boolean;
}

export function flattenBuffer(func: PrimFunc, opts: FlattenBufferOptions = {}): PrimFunc {
  requireNoBlocks(PASS, func.body);
  const flattener = new Flattener();
  const bufferMap = new Map<Var, Buffer>();
  for (const [param, buffer] of func.bufferMap) bufferMap.set(param, opts.paramAliases === true ? buffer : flattener.mapBuffer(buffer));
  let body = flattener.visitStmt(func.body);
  if (opts.paramAliases === true) {
    const aliases = [...func.bufferMap.values()].filter((b) => !isFlat(b)).map((b) => flattener.mapBuffer(b));
    body = aliases.reduceRight<Stmt>((inner, alias) => ({ kind: "DeclBuffer", buffer: alias, body: inner }), body);
  }
  return { ...func, bufferMap, body };
}

export const flattenBufferPass: Pass = { name: PASS, run: (func) => flattenBuffer(func) };
