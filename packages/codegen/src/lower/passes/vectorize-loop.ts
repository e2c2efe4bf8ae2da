/**
 * Pass 9, `vectorizeLoop`: a `vectorized` loop of constant extent `n` whose body is a sequence of
 * stores becomes one vector statement per store — contiguous accesses get `Ramp(base, 1, n)`
 * indices, loop-invariant scalars are broadcast, values have dtype `<elem>x<n>`. When the body has
 * another shape, a guard may differ between lanes (a guard every lane provably agrees on is kept,
 * once per vector), an access is not contiguous, a lane would depend on another lane's store, or the
 * vector is wider than the target's widest access (`maxVectorBytes`), the loop is scalarised to a
 * serial loop (TVM's fallback). A contiguous access that would be one 64- or 128-bit memory
 * instruction must start at a provable multiple of its lane count: otherwise the vectorization is
 * refused with a LoweringError naming the loop and the access (TVM falls back to scalar accesses
 * silently).
 */
import {
  type BufferLoad,
  type BufferStore,
  type DType,
  type For,
  IRMutator,
  type PrimExpr,
  type Stmt,
  type Var,
  binary,
  broadcast,
  bufferLoad,
  bufferStore,
  bytesOf,
  call,
  cast,
  elementType,
  forEachExpr,
  forEachStmt,
  ifThenElseStmt,
  intrinsicInfo,
  lanesOf,
  not,
  printExpr,
  ramp,
  sameExprStructure,
  select,
  seq,
  simplify,
  substitute,
  substituteStmt,
  usesVar,
  withLanes,
  withBody,
} from "@tessera/ir";
import { LoweringError } from "../errors.js";
import { type CudaPassContext, type Pass, cudaPass } from "../pass.js";
import { isProvablyMultipleOf } from "../util/divisibility.js";
import { strideIn } from "../kernel/affine.js";
import { laneUniformGuard } from "../util/lane-uniform-guard.js";

/** Elementwise intrinsics that accept vector operands lane by lane. */
const ELEMENTWISE_CALLS = new Set(["exp", "log", "sqrt", "tanh", "sigmoid", "floor", "ceil", "round", "trunc", "fabs", "pow"]);

interface VectorLoop {
  readonly v: Var;
  readonly min: PrimExpr;
  readonly lanes: number;
}

export const vectorizeLoopPass: Pass = cudaPass("vectorizeLoop", (func, ctx) => {
  const body = new LoopVectorizer(ctx).visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
});

class LoopVectorizer extends IRMutator {
  constructor(private readonly ctx: CudaPassContext) {
    super();
  }

  override visitFor(s: For): Stmt {
    const loop = super.visitFor(s);
    if (loop.kind !== "For" || loop.forKind !== "vectorized") return loop;
    return vectorize(loop, this.ctx.target.maxVectorBytes) ?? { ...loop, forKind: "serial" };
  }
}

/** The vector form of `loop`, or undefined when it must run as a serial loop. */
function vectorize(loop: For, maxVectorBytes: number): Stmt | undefined {
  if (loop.extent.kind !== "IntImm" || usesVar(loop.min, (x) => x === loop.loopVar)) return undefined;
  const lanes = loop.extent.value;
  if (lanes === 1) return substituteStmt(loop.body, new Map([[loop.loopVar, loop.min]]));
  if (lanes < 1) return undefined;
  const vl: VectorLoop = { v: loop.loopVar, min: loop.min, lanes };
  const stores = storesOf(loop.body);
  if (stores === undefined || !lanesAreIndependent(stores)) return undefined;
  if (widestElementBytes(stores) * lanes > maxVectorBytes) return undefined;
  const out = vectorizeBody(loop.body, vl);
  if (out === undefined) return undefined;
  forEachStmt(out, (st) => {
    if (st.kind === "BufferStore") checkAligned(st, loop);
  });
  return out;
}

/** Every store of a body made of stores, sequences and `if`s; undefined when it holds anything else. */
function storesOf(body: Stmt): BufferStore[] | undefined {
  const stores: BufferStore[] = [];
  let plain = true;
  forEachStmt(body, (s) => {
    if (s.kind === "BufferStore") stores.push(s);
    else if (s.kind !== "SeqStmt" && s.kind !== "IfThenElse") plain = false;
  });
  return plain ? stores : undefined;
}

/**
 * The vector form of a body of stores: each `if`, and each stored `if_then_else` (a zero-filled
 * fetch), whose condition every lane provably agrees on runs once per vector, its condition
 * taken at the first lane. Undefined when a condition may differ between lanes (the loop is
 * scalarised) or a store cannot be vectorized.
 */
function vectorizeBody(s: Stmt, vl: VectorLoop): Stmt | undefined {
  switch (s.kind) {
    case "SeqStmt": {
      const parts = s.seq.map((x) => vectorizeBody(x, vl));
      return parts.every((p): p is Stmt => p !== undefined) ? seq(parts) : undefined;
    }
    case "IfThenElse": {
      const guard = laneUniformGuard(s.condition, vl);
      const thenCase = guard === undefined ? undefined : vectorizeBody(s.thenCase, vl);
      const elseCase = s.elseCase === undefined ? undefined : vectorizeBody(s.elseCase, vl);
      if (guard === undefined || thenCase === undefined || (s.elseCase !== undefined && elseCase === undefined)) return undefined;
      return ifThenElseStmt(guard, thenCase, elseCase);
    }
    case "BufferStore": {
      const v = s.value;
      if (v.kind === "Call" && v.op === "if_then_else" && v.args.length === 3) {
        const [cond, onTrue, onFalse] = v.args as [PrimExpr, PrimExpr, PrimExpr];
        return vectorizeBody(ifThenElseStmt(cond, bufferStore(s.buffer, onTrue, s.indices), bufferStore(s.buffer, onFalse, s.indices)), vl);
      }
      return vectorizeStore(s, vl);
    }
    default:
      return undefined;
  }
}

/** Vector accesses of these widths are single 64- or 128-bit memory instructions, which need aligned addresses. */
const WIDE_ACCESS_BYTES: ReadonlySet<number> = new Set([8, 16]);

/**
 * Every contiguous access of a vectorized store that would be one wide memory instruction must
 * start at a provable multiple of its lane count; otherwise the vectorization is refused, naming
 * the loop and the access (a misaligned wide access faults or reads the wrong elements).
 */
function checkAligned(st: BufferStore, loop: For): void {
  const accesses: { buffer: BufferStore["buffer"]; index: PrimExpr; access: string }[] = [
    { buffer: st.buffer, index: st.indices[st.indices.length - 1]!, access: "store to" },
  ];
  forEachExpr(st.value, (e) => {
    if (e.kind === "BufferLoad") accesses.push({ buffer: e.buffer, index: e.indices[e.indices.length - 1]!, access: "load of" });
  });
  for (const { buffer, index, access } of accesses) {
    if (index.kind !== "Ramp" || index.stride.kind !== "IntImm" || index.stride.value !== 1 || lanesOf(buffer.dtype) !== 1) continue;
    const bytes = bytesOf(buffer.dtype) * index.lanes;
    if (!WIDE_ACCESS_BYTES.has(bytes) || isProvablyMultipleOf(index.base, index.lanes)) continue;
    throw new LoweringError(
      "vectorizeLoop",
      `loop ${loop.loopVar.name} is vectorized ${index.lanes} wide, but its ${access} ${buffer.name}[${printExpr(index.base)} : +${index.lanes}] cannot be proven ${bytes}-byte aligned ` +
        `(${printExpr(index.base)} is not provably a multiple of ${index.lanes}); a ${bytes}-byte vector access needs an aligned address: ` +
        `choose tiles so that every vector starts at a multiple of ${index.lanes} elements, or unroll the loop instead of vectorizing it`,
    );
  }
}

/**
 * Running all lanes of one statement before the next is only equivalent to the serial loop when
 * no lane reads or overwrites an element that another lane stores: every access to a stored
 * buffer must use the stored index itself.
 */
function lanesAreIndependent(stores: readonly BufferStore[]): boolean {
  const stored = new Map<Var, readonly PrimExpr[]>();
  for (const st of stores) {
    const previous = stored.get(st.buffer.data);
    if (previous !== undefined && !sameIndices(previous, st.indices)) return false;
    stored.set(st.buffer.data, st.indices);
  }
  let independent = true;
  for (const st of stores) {
    forEachExpr(st.value, (e) => {
      if (e.kind !== "BufferLoad") return;
      const indices = stored.get(e.buffer.data);
      if (indices !== undefined && !sameIndices(indices, e.indices)) independent = false;
    });
  }
  return independent;
}

function sameIndices(a: readonly PrimExpr[], b: readonly PrimExpr[]): boolean {
  return a.length === b.length && a.every((x, i) => sameExprStructure(x, b[i]!));
}

/** Bytes of the widest element the stores load, store or compute (index arithmetic excluded). */
function widestElementBytes(stores: readonly BufferStore[]): number {
  let widest = 1;
  const note = (dt: DType): void => {
    widest = Math.max(widest, bytesOf(elementType(dt)));
  };
  for (const st of stores) {
    note(st.buffer.dtype);
    forEachExpr(st.value, (e) => {
      if (e.kind === "BufferLoad" || e.kind === "Cast") note(e.dtype);
    });
  }
  return widest;
}

function vectorizeStore(st: BufferStore, vl: VectorLoop): BufferStore | undefined {
  const indices = vectorizeIndices(st.indices, vl);
  // A store whose index does not move with the loop would write one element from every lane.
  if (indices === undefined || indices.every((i, k) => i === st.indices[k])) return undefined;
  const value = vectorizeExpr(st.value, vl);
  if (value === undefined) return undefined;
  return bufferStore(st.buffer, lanesOf(value.dtype) === 1 ? broadcast(value, vl.lanes) : value, indices);
}

/**
 * Indices of an access: all but the last must be loop-invariant, the last invariant (the same
 * element in every lane) or of stride 1 (a `Ramp`). Undefined for any other access.
 */
function vectorizeIndices(indices: readonly PrimExpr[], vl: VectorLoop): readonly PrimExpr[] | undefined {
  const out: PrimExpr[] = [];
  for (let k = 0; k < indices.length; k++) {
    const index = indices[k]!;
    const stride = strideIn(index, vl.v);
    if (stride === 0) {
      out.push(index);
      continue;
    }
    if (stride !== 1 || k !== indices.length - 1) return undefined;
    out.push(ramp(laneZero(index, vl), 1, vl.lanes));
  }
  return out;
}

/** `e` at the first lane: the loop variable replaced by the loop's minimum. */
function laneZero(e: PrimExpr, vl: VectorLoop): PrimExpr {
  return simplify(substitute(e, new Map([[vl.v, vl.min]])));
}

/**
 * The vector form of a value: a scalar expression where it does not depend on the loop (the
 * caller broadcasts it), a vector of `lanes` lanes where it does, undefined where it cannot be
 * expressed lane-wise.
 */
function vectorizeExpr(e: PrimExpr, vl: VectorLoop): PrimExpr | undefined {
  if (!usesVar(e, (x) => x === vl.v)) return e;
  switch (e.kind) {
    case "Var":
      return ramp(vl.min, 1, vl.lanes);
    case "Binary": {
      const a = vectorizeExpr(e.a, vl);
      const b = vectorizeExpr(e.b, vl);
      return a === undefined || b === undefined ? undefined : binary(e.op, a, b);
    }
    case "Not": {
      const a = vectorizeExpr(e.a, vl);
      return a === undefined ? undefined : not(a);
    }
    case "Cast": {
      const value = vectorizeExpr(e.value, vl);
      return value === undefined ? undefined : cast(withLanes(e.dtype, lanesOf(value.dtype)), value);
    }
    case "Select": {
      const parts = [e.condition, e.trueValue, e.falseValue].map((x) => vectorizeExpr(x, vl));
      if (parts.some((p) => p === undefined)) return undefined;
      const [c, t, f] = parts.map((p) => widen(p!, vl.lanes)) as [PrimExpr, PrimExpr, PrimExpr];
      return select(c, t, f);
    }
    case "BufferLoad":
      return vectorizeLoad(e, vl);
    case "Call": {
      if (!ELEMENTWISE_CALLS.has(e.op) || intrinsicInfo(e.op)?.pure !== true) return undefined;
      const args = e.args.map((a) => vectorizeExpr(a, vl));
      if (args.some((a) => a === undefined)) return undefined;
      return call(
        withLanes(e.dtype, vl.lanes),
        e.op,
        args.map((a) => widen(a!, vl.lanes)),
      );
    }
    default:
      // Ramp, Broadcast and Let of the loop variable are not produced by the schedules we lower.
      return undefined;
  }
}

function vectorizeLoad(e: BufferLoad, vl: VectorLoop): PrimExpr | undefined {
  const indices = vectorizeIndices(e.indices, vl);
  if (indices === undefined) return undefined;
  return bufferLoad(e.buffer, indices);
}

function widen(e: PrimExpr, lanes: number): PrimExpr {
  return lanesOf(e.dtype) === 1 ? broadcast(e, lanes) : e;
}
