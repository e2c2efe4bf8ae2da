/**
 * Recognising the commutative reducer of a reduction block (TVM's `analysis/reducer.cc` and its
 * `ReducerRegistry`): the init must store the reducer's identity and the update must store
 * `combiner(B[idx], rhs)` into the same buffer at the same indices. Registered single-buffer
 * reducers: sum (0), product (1), min (dtype max), max (dtype min), tried in that order.
 */
import {
  type Block,
  type BufferStore,
  type DType,
  type PrimExpr,
  type Var,
  Analyzer,
  add,
  bufferLoad,
  constant,
  max,
  maxValue,
  min,
  minValue,
  mul,
  printExpr,
  sameExprStructure,
  variable,
} from "@tessera/ir";
import { ScheduleError } from "../errors.js";
import { nameOf } from "./schedule-checks.js";

export interface Reducer {
  readonly name: "sum" | "product" | "min" | "max";
  readonly lhs: Var;
  readonly rhs: Var;
  /** The combiner written in `lhs` and `rhs`. */
  readonly result: PrimExpr;
  readonly identity: PrimExpr;
}

const REDUCERS: ReadonlyArray<{ name: Reducer["name"]; combine: (x: PrimExpr, y: PrimExpr) => PrimExpr; identity: (dt: DType) => PrimExpr }> = [
  { name: "sum", combine: add, identity: (dt) => constant(0, dt) },
  { name: "product", combine: mul, identity: (dt) => constant(1, dt) },
  { name: "min", combine: min, identity: maxValue },
  { name: "max", combine: max, identity: minValue },
];

function makeReducer(entry: (typeof REDUCERS)[number], dt: DType): Reducer {
  const lhs = variable("x0", dt);
  const rhs = variable("y0", dt);
  return { name: entry.name, lhs, rhs, result: entry.combine(lhs, rhs), identity: entry.identity(dt) };
}

/** Applies a reducer's combiner to concrete operands. */
export function combine(reducer: Reducer, lhs: PrimExpr, rhs: PrimExpr): PrimExpr {
  return REDUCERS.find((r) => r.name === reducer.name)!.combine(lhs, rhs);
}

const APPLICABLE_DEFINITION = `Definition of a reduction block that is applicable by RFactor and Cross-Thread Reduction:
1) The block init should be a single BufferStore or a SeqStmt of BufferStores
2) The buffers initialized in the block init should be all different
3) The number of consecutive LetStmts in the block body (if any) should equal the number of BufferStores in the block init
4) The variables of the LetStmts in the block body should be all different
5) The body of the innermost LetStmt should be a single BufferStore or a SeqStmt of BufferStores
6) The number of BufferStores under the block body should equal the number of BufferStores in the block init, and thereby equal the number of LetStmts above
7) The variables bound by the LetStmts in the block body must all directly serve as values of the BufferStores inside, and the stored values of the BufferStores can only be those variables
8) The variables stored by the BufferStores in the block body should be all different
9) The buffers written by the BufferStores in the block body should be all different
10) The buffers initialized in the block init and written in the block body should match
11) The buffers written by the block should have same shape
12) The indices of all BufferStores in the reduction block should be the same`;

export class RFactorNotApplicableError extends ScheduleError {
  override name = "RFactorNotApplicableError";
  constructor(primitive: string, blk: Block, readonly violatedCondition: number) {
    super(
      primitive,
      `RFactor cannot be applied to block ${nameOf(blk)}, because the block violates condition #${violatedCondition}.\n${APPLICABLE_DEFINITION}`,
      [blk],
    );
  }
}

export class NoMatchedReducerError extends ScheduleError {
  override name = "NoMatchedReducerError";
  constructor(primitive: string, identity: PrimExpr, update: BufferStore) {
    const store = `${update.buffer.name}[${update.indices.map((i) => printExpr(i)).join(", ")}] = ${printExpr(update.value)}`;
    super(
      primitive,
      `No matched reducer for identity [${printExpr(identity)}] and combiner [${store}]. ` +
        "In this case rfactor cannot be applied. You can check tvm::tir::ReducerRegistry for default reducers or registering new reducers.",
    );
  }
}

export interface ReductionParts {
  readonly identity: PrimExpr;
  readonly update: BufferStore;
}

/**
 * The init value and the update store of a single-buffer reduction block. (Multi-buffer reductions
 * such as argmax, written with lets, are not supported yet: they fail condition #3.)
 */
export function initAndUpdate(primitive: string, blk: Block): ReductionParts {
  const init = blk.init;
  if (init === undefined) throw new RFactorNotApplicableError(primitive, blk, 1);
  let inits: BufferStore[];
  if (init.kind === "BufferStore") inits = [init];
  else if (init.kind === "SeqStmt") {
    inits = init.seq.map((s) => {
      if (s.kind !== "BufferStore") throw new RFactorNotApplicableError(primitive, blk, 1);
      return s;
    });
    if (new Set(inits.map((s) => s.buffer)).size !== inits.length) throw new RFactorNotApplicableError(primitive, blk, 2);
  } else throw new RFactorNotApplicableError(primitive, blk, 1);
  const update = blk.body;
  if (update.kind !== "BufferStore") throw new RFactorNotApplicableError(primitive, blk, 3);
  if (inits.length !== 1) throw new RFactorNotApplicableError(primitive, blk, 3);
  const first = inits[0]!;
  if (first.indices.length !== update.indices.length) throw new RFactorNotApplicableError(primitive, blk, 12);
  const analyzer = new Analyzer();
  if (!first.indices.every((e, k) => analyzer.canProveEqual(e, update.indices[k]!))) {
    throw new RFactorNotApplicableError(primitive, blk, 12);
  }
  if (first.buffer !== update.buffer) throw new RFactorNotApplicableError(primitive, blk, 10);
  return { identity: first.value, update };
}

export interface MatchedReducer {
  readonly reducer: Reducer;
  /** The combiner's operands in the update: `lhs` is the load of the updated element. */
  readonly lhs: PrimExpr;
  readonly rhs: PrimExpr;
}

/** The first registered reducer whose identity and combiner pattern match the block. */
export function matchReducer(parts: ReductionParts): MatchedReducer | undefined {
  const { identity, update } = parts;
  const updated = bufferLoad(update.buffer, update.indices);
  for (const entry of REDUCERS) {
    const reducer = makeReducer(entry, identity.dtype);
    if (!sameExprStructure(reducer.identity, identity)) continue;
    const holes = new Map<Var, PrimExpr>();
    if (!matchPattern(reducer.result, update.value, new Set([reducer.lhs, reducer.rhs]), holes)) continue;
    const lhs = holes.get(reducer.lhs);
    const rhs = holes.get(reducer.rhs);
    if (lhs === undefined || rhs === undefined || !sameExprStructure(lhs, updated)) continue;
    return { reducer, lhs, rhs };
  }
  return undefined;
}

/** Structural match of `expr` against `pattern`, whose `holes` variables match any subexpression. */
function matchPattern(pattern: PrimExpr, expr: PrimExpr, holes: ReadonlySet<Var>, filled: Map<Var, PrimExpr>): boolean {
  if (pattern.kind === "Var" && holes.has(pattern)) {
    const prev = filled.get(pattern);
    if (prev === undefined) {
      filled.set(pattern, expr);
      return true;
    }
    return sameExprStructure(prev, expr);
  }
  if (pattern.kind !== expr.kind || pattern.dtype !== expr.dtype) return false;
  if (pattern.kind === "Binary" && expr.kind === "Binary") {
    return pattern.op === expr.op && matchPattern(pattern.a, expr.a, holes, filled) && matchPattern(pattern.b, expr.b, holes, filled);
  }
  return sameExprStructure(pattern, expr);
}
