/**
 * Pass 7, `flattenBuffer` (TVM FlattenBuffer): every buffer (parameters, allocations, declared
 * views) becomes one-dimensional, `shape = [elements]`, and every access uses one index: the
 * element offset plus the indices weighted by the strides (row-major when the buffer has none).
 * A flat buffer keeps its name, scope and `data` variable, so parameters stay the same pointers.
 * A buffer with strides keeps the elements it spans, `Σ (shape[d] - 1) · strides[d] + 1`, or, with
 * `outerStrideSize`, TVM's `strides[0] * shape[0]` (its GetFlattenedBuffer). Blocks
 * that remain (the pass runs after lowerOpaqueBlock in the pipeline, but TVM accepts them) get
 * their allocations flattened and their regions folded to the flat range from first to last element.
 *
 * TVM keeps the parameter buffers as declared and accesses each one the body uses through a flat
 * alias declared at the top of the body (`A_1 = T.decl_buffer(256, data=A.data)`), one-dimensional
 * parameters too; `paramAliases` does that. The pipeline flattens parameters in place instead:
 * kernel parameters are then flat buffers, which splitHostDevice and the code generators read
 * (docs/architecture/tvm-deviations-lowering.md).
 */
import {
  Analyzer,
  type Buffer,
  type BufferLoad,
  type BufferRegion,
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
import { recombineDigits } from "../util/digit-recombination.js";

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

/**
 * Elements of storage `buffer` spans: offset + the product of the shape; with strides, offset +
 * Σ (shape[d] - 1) · stride[d] + 1, or `strides[0] * shape[0]` where `outerStride` (TVM's size).
 */
function flatSize(buffer: Buffer, analyzer: Analyzer, outerStride: boolean, tvmForms: boolean): PrimExpr {
  if (buffer.strides.length === 0) {
    const product = buffer.shape.reduce<PrimExpr>((acc, n) => mul(acc, n), intImm(1, buffer.shape[0]?.dtype ?? "int32"));
    return tvmForms ? analyzer.canonicalSimplify(add(buffer.elemOffset, product)) : analyzer.simplify(add(buffer.elemOffset, product));
  }
  if (outerStride) return analyzer.simplify(add(buffer.elemOffset, mul(buffer.strides[0]!, buffer.shape[0]!)));
  const strides = stridesOf(buffer);
  const span = buffer.shape.reduce<PrimExpr>((acc, n, d) => add(acc, mul(sub(n, 1), strides[d]!)), intImm(1, "int32"));
  return analyzer.simplify(add(buffer.elemOffset, span));
}

class Flattener extends IRMutator {
  private readonly flat = new Map<Buffer, Buffer>();
  private readonly analyzer = new Analyzer();

  /** `aliased`: buffers accessed through a new flat buffer even where they are flat already (TVM's parameters). */
  constructor(
    aliased: readonly Buffer[],
    private readonly outerStrideSize: boolean,
    private readonly tvmForms: boolean,
  ) {
    super();
    for (const b of aliased) if (isFlat(b)) this.flat.set(b, withBuffer(b, {}));
  }

  override mapBuffer(b: Buffer): Buffer {
    let f = this.flat.get(b);
    if (f === undefined && isFlat(b)) return b;
    if (f === undefined) {
      f = withBuffer(b, { shape: [flatSize(b, this.analyzer, this.outerStrideSize, this.tvmForms)], strides: [], elemOffset: intImm(0, b.elemOffset.dtype) });
      this.flat.set(b, f);
    }
    return f;
  }

  /** The one index of `buffer[indices]` in its flat version. */
  private flatIndex(buffer: Buffer, indices: readonly PrimExpr[]): PrimExpr[] {
    if (isFlat(buffer)) return [...indices];
    const strides = stridesOf(buffer);
    const digitsOf = this.tvmForms && buffer.strides.length === 0 ? recombineDigits(indices, strides, (a, b) => this.analyzer.canProveEqual(a, b)) : undefined;
    if (digitsOf !== undefined) return [this.analyzer.simplify(add(buffer.elemOffset, digitsOf))];
    const terms = indices.map((i, d) => (isConstInt(strides[d]!, 1) ? i : mul(i, strides[d]!)));
    const sum = terms.reduce((acc, t) => add(acc, t), buffer.elemOffset);
    return [this.analyzer.simplify(sum)];
  }

  /** Buffers the body reads or writes (TVM declares aliases for those parameters only). */
  readonly used = new Set<Buffer>();

  /** A region of a remaining block: the flat range from its first to its last element. */
  override visitRegion(r: BufferRegion): BufferRegion {
    const visited = super.visitRegion(r);
    if (isFlat(r.buffer)) return visited;
    const [first] = this.flatIndex(
      r.buffer,
      visited.region.map((x) => x.min),
    );
    const [last] = this.flatIndex(
      r.buffer,
      visited.region.map((x) => sub(add(x.min, x.extent), 1)),
    );
    return { ...visited, region: [{ min: first!, extent: this.analyzer.simplify(add(sub(last!, first!), 1)) }] };
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    this.used.add(e.buffer);
    const visited = super.visitBufferLoad(e) as BufferLoad;
    if (isFlat(e.buffer)) return visited;
    return { ...visited, indices: this.flatIndex(e.buffer, visited.indices) };
  }

  override visitBufferStore(s: BufferStore): Stmt {
    this.used.add(s.buffer);
    const visited = super.visitBufferStore(s) as BufferStore;
    if (isFlat(s.buffer)) return visited;
    return { ...visited, indices: this.flatIndex(s.buffer, visited.indices) };
  }
}

export interface FlattenBufferOptions {
  /** Keep parameter buffers as declared and access them through flat aliases (TVM's form). */
  readonly paramAliases?: boolean;
  /** Size a strided buffer `strides[0] * shape[0]`, as TVM does, rather than the elements it spans. */
  readonly outerStrideSize?: boolean;
  /**
   * TVM's forms: flat shapes canonically simplified (`n * n * 32`), and indices that are the digits
   * of one value (`A[x // (n*n), x % (n*n) // n, x % n]`) flattened to that value, as TVM's
   * iterator-map simplification of the flat index gives.
   */
  readonly tvmForms?: boolean;
}

export function flattenBuffer(func: PrimFunc, opts: FlattenBufferOptions = {}): PrimFunc {
  const flattener = new Flattener(opts.paramAliases === true ? [...func.bufferMap.values()] : [], opts.outerStrideSize === true, opts.tvmForms === true);
  const bufferMap = new Map<Var, Buffer>();
  for (const [param, buffer] of func.bufferMap) bufferMap.set(param, opts.paramAliases === true ? buffer : flattener.mapBuffer(buffer));
  let body = flattener.visitStmt(func.body);
  if (opts.paramAliases === true) {
    const aliases = [...func.bufferMap.values()].filter((b) => flattener.used.has(b)).map((b) => flattener.mapBuffer(b));
    body = aliases.reduceRight<Stmt>((inner, alias) => ({ kind: "DeclBuffer", buffer: alias, body: inner }), body);
  }
  return { ...func, bufferMap, body };
}

export const flattenBufferPass: Pass = { name: PASS, run: (func) => flattenBuffer(func) };
