/**
 * The part of a kernel body that decides where one buffer is stored: the loops, conditions and
 * `let`s around its stores, with the stored values replaced by zero. Statements and loops with no
 * store to that buffer are left out (loads into shared and local memory, barriers, the arithmetic
 * of other buffers), so running the slice for every thread costs only the index arithmetic of the
 * stores; a constant loop whose variable places no store runs once. The slice is exact when what it keeps reads no memory: a store whose index, guard or
 * loop bound depends on a loaded value cannot be placed without computing values, and a buffer
 * written through an intrinsic (a pointer passed to a call) is out of its reach; both are
 * reported as the reason the slice cannot be made.
 */
import {
  type BufferStore,
  type DType,
  type PrimExpr,
  type Stmt,
  type Var,
  binary,
  boolImm,
  broadcast,
  bufferStore,
  elementType,
  floatImm,
  forEachExpr,
  forEachStmt,
  forLoop,
  intImm,
  isBool,
  isFloat,
  lanesOf,
  letStmt,
  printExpr,
  usesVar,
  variable,
} from "@tessera/ir";

export type StoreSlice = { readonly ok: true; readonly body: Stmt | undefined } | { readonly ok: false; readonly why: string };

/** The slice of `body` that stores `target` (the storage variable of a buffer); body undefined when nothing stores it. */
export function sliceStores(body: Stmt, target: Var, targetName: string): StoreSlice {
  const pointerUse = findPointerUse(body, target);
  if (pointerUse !== undefined) return { ok: false, why: `${targetName} is written through ${pointerUse}, which the store coverage does not model` };
  const sliced = slice(body, target);
  if (sliced === undefined) return { ok: true, body: undefined };
  const load = firstLoad(sliced);
  if (load !== undefined)
    return { ok: false, why: `where the kernel stores ${targetName} depends on a value it loads (${load}), not only on loop and thread indices` };
  return { ok: true, body: sliced };
}

function slice(s: Stmt, target: Var): Stmt | undefined {
  switch (s.kind) {
    case "BufferStore":
      return s.buffer.data === target ? lanewise(s) : undefined;
    case "SeqStmt": {
      const seq = s.seq.map((c) => slice(c, target)).filter((c): c is Stmt => c !== undefined);
      if (seq.length === 0) return undefined;
      return seq.length === 1 ? seq[0] : { kind: "SeqStmt", seq };
    }
    case "IfThenElse": {
      const thenCase = slice(s.thenCase, target);
      const elseCase = s.elseCase === undefined ? undefined : slice(s.elseCase, target);
      if (thenCase === undefined && elseCase === undefined) return undefined;
      return { kind: "IfThenElse", condition: s.condition, thenCase: thenCase ?? { kind: "SeqStmt", seq: [] }, elseCase };
    }
    case "For": {
      const body = slice(s.body, target);
      if (body === undefined) return undefined;
      // A loop whose variable places no store (the stores of a write-back inside a reduction
      // loop, say) stores the same elements, from the same thread, on every iteration: once is
      // enough, when it runs at all.
      if (s.extent.kind === "IntImm" && !usesVar(body, (v) => v === s.loopVar)) return s.extent.value > 0 ? body : undefined;
      return { ...s, body };
    }
    case "LetStmt": {
      const body = slice(s.body, target);
      if (body === undefined) return undefined;
      // A value the stores do not use (a loaded operand, say) is left out with its computation.
      return usesVar(body, (v) => v === s.variable) ? { ...s, body } : body;
    }
    case "AttrStmt":
    case "While": {
      // A while loop's condition stays: what it reads makes the slice inexact, as a loop bound does.
      const body = slice(s.body, target);
      return body === undefined ? undefined : { ...s, body };
    }
    case "Allocate":
      // What is left reads no memory (checked afterwards), so the allocation is not needed.
      return slice(s.body, target);
    case "DeclBuffer": {
      const body = slice(s.body, target);
      if (body === undefined) return undefined;
      return s.buffer.data === target ? { ...s, body } : body;
    }
    case "Evaluate":
      // Barriers, asynchronous copies and other calls: a pointer to the target was ruled out.
      return undefined;
    case "BlockRealize":
      // Device code has no blocks; one here would hide its stores from the slice.
      return s;
  }
}

/**
 * The store with zero stored. A vector store `D[base:base + n]` becomes a loop over its lanes
 * after one `let` of the base: the executor emits a vector access lane by lane, each lane with the
 * whole index expression again.
 */
function lanewise(s: BufferStore): Stmt {
  const index = s.indices[0];
  if (s.indices.length !== 1 || index?.kind !== "Ramp" || lanesOf(s.buffer.dtype) !== 1) return { ...s, value: zeroLike(s.value) };
  const base = variable("store_base", index.base.dtype);
  const lane = variable("store_lane", index.base.dtype);
  const element = binary("add", base, binary("mul", lane, index.stride));
  return letStmt(base, index.base, forLoop(lane, intImm(index.lanes, index.base.dtype), bufferStore(s.buffer, zeroOf(s.buffer.dtype), [element])));
}

function zeroLike(value: PrimExpr): PrimExpr {
  const lanes = lanesOf(value.dtype);
  const zero = zeroOf(elementType(value.dtype));
  return lanes > 1 ? broadcast(zero, lanes) : zero;
}

function zeroOf(scalar: DType): PrimExpr {
  return isFloat(scalar) ? floatImm(0, scalar) : isBool(scalar) ? boolImm(false) : intImm(0, scalar);
}

/** The first memory read in `s`, printed; undefined when there is none. */
function firstLoad(s: Stmt): string | undefined {
  let found: string | undefined;
  forEachExpr(s, (e) => {
    if (found === undefined && e.kind === "BufferLoad") found = printExpr(e);
  });
  if (found === undefined && containsBlock(s)) found = "a block left in device code";
  return found;
}

function containsBlock(s: Stmt): boolean {
  switch (s.kind) {
    case "BlockRealize":
      return true;
    case "SeqStmt":
      return s.seq.some(containsBlock);
    case "IfThenElse":
      return containsBlock(s.thenCase) || (s.elseCase !== undefined && containsBlock(s.elseCase));
    case "For":
    case "While":
    case "LetStmt":
    case "AttrStmt":
    case "Allocate":
    case "DeclBuffer":
      return containsBlock(s.body);
    default:
      return false;
  }
}

/**
 * A call that could store `target` behind the slice's back, printed: one handed `target` itself (a
 * pointer), or a call statement (an intrinsic run for its effect) handed an element of it, as
 * `T.address_of(D[i])` would be. Loads and stores name the buffer only through their `buffer`.
 */
function findPointerUse(body: Stmt, target: Var): string | undefined {
  let found: string | undefined;
  forEachExpr(body, (e) => {
    if (found === undefined && e.kind === "Call" && e.args.some((a) => mentions(a, (x) => x === target))) found = printExpr(e);
  });
  forEachStmt(body, (s) => {
    if (found !== undefined || s.kind !== "Evaluate" || s.value.kind !== "Call") return;
    if (mentions(s.value, (x) => x.kind === "BufferLoad" && x.buffer.data === target)) found = printExpr(s.value);
  });
  return found;
}

function mentions(e: PrimExpr, pred: (x: PrimExpr) => boolean): boolean {
  let hit = false;
  forEachExpr(e, (x) => {
    if (pred(x)) hit = true;
  });
  return hit;
}
