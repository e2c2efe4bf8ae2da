/**
 * Recognising the commutative reducer of a reduction block (TVM's `analysis/reducer.cc` and its
 * `ReducerRegistry`): the init must store the reducer's identity and the update must store
 * `combiner(B[idx], rhs)` into the same buffer at the same indices. Registered reducers, tried in
 * TVM's order: sum (0), product (1), min (dtype max), max (dtype min) on one buffer; a pair of
 * sums, argmax and argmin (with and without first-index tie breaking) on two buffers (index, value),
 * whose block body binds each combined value with a let and stores the let variables.
 */
import {
  type Block,
  type BufferStore,
  type DType,
  type PrimExpr,
  type Stmt,
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
  and,
  eq,
  ge,
  gt,
  le,
  lt,
  or,
  select,
  printExpr,
  sameExprStructure,
  variable,
} from "@tessera/ir";
import { ScheduleError } from "../errors.js";
import { nameOf } from "./schedule-checks.js";

export interface Reducer {
  readonly name: string;
  /** One pattern variable per buffer for the accumulated values … */
  readonly lhs: readonly Var[];
  /** … and for the values combined into them. */
  readonly rhs: readonly Var[];
  /** The combiner, one result per buffer, written in `lhs` and `rhs`. */
  readonly result: readonly PrimExpr[];
  readonly identity: readonly PrimExpr[];
}

type Combiner = (x: readonly PrimExpr[], y: readonly PrimExpr[]) => PrimExpr[];
interface RegisteredReducer {
  readonly name: string;
  readonly buffers: number;
  readonly combine: Combiner;
  readonly identity: (dts: readonly DType[]) => PrimExpr[];
}

// TVM's ReducerRegistry, in its order: sum, product, min, max; then the two-buffer ones: a pair
// of sums, argmax, argmax taking the first index on ties, argmin, argmin likewise.
const argBy =
  (better: (a: PrimExpr, b: PrimExpr) => PrimExpr): Combiner =>
  (x, y) => [select(better(x[1]!, y[1]!), x[0]!, y[0]!), select(better(x[1]!, y[1]!), x[1]!, y[1]!)];
const argByTieFirst =
  (strict: (a: PrimExpr, b: PrimExpr) => PrimExpr): Combiner =>
  (x, y) => [select(or(strict(x[1]!, y[1]!), and(eq(x[1]!, y[1]!), lt(x[0]!, y[0]!))), x[0]!, y[0]!), select(strict(x[1]!, y[1]!), x[1]!, y[1]!)];
const REDUCERS: readonly RegisteredReducer[] = [
  { name: "sum", buffers: 1, combine: (x, y) => [add(x[0]!, y[0]!)], identity: (dt) => [constant(0, dt[0]!)] },
  { name: "product", buffers: 1, combine: (x, y) => [mul(x[0]!, y[0]!)], identity: (dt) => [constant(1, dt[0]!)] },
  { name: "min", buffers: 1, combine: (x, y) => [min(x[0]!, y[0]!)], identity: (dt) => [maxValue(dt[0]!)] },
  { name: "max", buffers: 1, combine: (x, y) => [max(x[0]!, y[0]!)], identity: (dt) => [minValue(dt[0]!)] },
  { name: "sum2", buffers: 2, combine: (x, y) => [add(x[0]!, y[0]!), add(x[1]!, y[1]!)], identity: (dt) => [constant(0, dt[0]!), constant(0, dt[1]!)] },
  { name: "argmax", buffers: 2, combine: argBy(ge), identity: (dt) => [constant(-1, dt[0]!), minValue(dt[1]!)] },
  { name: "argmax_first", buffers: 2, combine: argByTieFirst(gt), identity: (dt) => [constant(-1, dt[0]!), minValue(dt[1]!)] },
  { name: "argmin", buffers: 2, combine: argBy(le), identity: (dt) => [constant(-1, dt[0]!), maxValue(dt[1]!)] },
  { name: "argmin_first", buffers: 2, combine: argByTieFirst(lt), identity: (dt) => [constant(-1, dt[0]!), maxValue(dt[1]!)] },
];

function makeReducer(entry: RegisteredReducer, dts: readonly DType[]): Reducer {
  const lhs = dts.map((dt, i) => variable(`x${i}`, dt));
  const rhs = dts.map((dt, i) => variable(`y${i}`, dt));
  return { name: entry.name, lhs, rhs, result: entry.combine(lhs, rhs), identity: entry.identity(dts) };
}

/** Applies a reducer's combiner to concrete operands (one per buffer). */
export function combine(reducer: Reducer, lhs: readonly PrimExpr[], rhs: readonly PrimExpr[]): PrimExpr[] {
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
  constructor(
    primitive: string,
    blk: Block,
    readonly violatedCondition: number,
  ) {
    super(
      primitive,
      `RFactor cannot be applied to block ${nameOf(blk)}, because the block violates condition #${violatedCondition}.\n${APPLICABLE_DEFINITION}`,
      [blk],
    );
  }
}

export class NoMatchedReducerError extends ScheduleError {
  override name = "NoMatchedReducerError";
  constructor(primitive: string, identities: readonly PrimExpr[], updates: readonly BufferStore[]) {
    const stores = updates.map((u) => `${u.buffer.name}[${u.indices.map((i) => printExpr(i)).join(", ")}] = ${printExpr(u.value)}`);
    super(
      primitive,
      `No matched reducer for identity [${identities.map((e) => printExpr(e)).join(", ")}] and combiner [${stores.join(", ")}]. ` +
        "In this case rfactor cannot be applied. You can check tvm::tir::ReducerRegistry for default reducers or registering new reducers.",
    );
  }
}

export interface ReductionParts {
  /** The init values, one per reduced buffer. */
  readonly identities: readonly PrimExpr[];
  /** The update of each buffer (in the order of the lets binding them), its value the combined expression. */
  readonly updates: readonly BufferStore[];
}

/**
 * The init values and the updates of a reduction block (TVM's
 * `GetInitValuesAndUpdatesFromReductionBlock`): one store, or, for several buffers (argmax), one
 * let per buffer around the stores of the let variables. Throws RFactorNotApplicableError with the
 * violated condition otherwise.
 */
export function initAndUpdate(primitive: string, blk: Block): ReductionParts {
  const fail = (condition: number) => new RFactorNotApplicableError(primitive, blk, condition);
  const init = blk.init;
  if (init === undefined) throw fail(1);
  let inits: BufferStore[];
  if (init.kind === "BufferStore") inits = [init];
  else if (init.kind === "SeqStmt") {
    inits = init.seq.map((s) => {
      if (s.kind !== "BufferStore") throw fail(1);
      return s;
    });
    if (new Set(inits.map((s) => s.buffer)).size !== inits.length) throw fail(2);
  } else throw fail(1);

  let stores: BufferStore[];
  const letValues = new Map<Var, PrimExpr>();
  if (blk.body.kind === "BufferStore") {
    if (inits.length !== 1) throw fail(3);
    stores = [blk.body];
  } else {
    let body: Stmt = blk.body;
    while (body.kind === "LetStmt") {
      if (letValues.has(body.variable)) throw fail(4);
      letValues.set(body.variable, body.value);
      body = body.body;
    }
    if (letValues.size !== inits.length) throw fail(3);
    if (body.kind === "BufferStore") stores = [body];
    else if (body.kind === "SeqStmt" && body.seq.every((s) => s.kind === "BufferStore")) stores = body.seq as BufferStore[];
    else throw fail(5);
    if (stores.length !== inits.length) throw fail(6);
    const storedVars = stores.map((s) => (s.value.kind === "Var" && letValues.has(s.value) ? s.value : undefined));
    if (storedVars.some((v) => v === undefined)) throw fail(7);
    if (new Set(storedVars).size !== stores.length) throw fail(8);
    if (new Set(stores.map((s) => s.buffer)).size !== stores.length) throw fail(9);
    // As in TVM, the buffers are ordered as the lets are; each store takes its let's value.
    const letOrder = [...letValues.keys()];
    stores = letOrder.map((v) => {
      const store = stores.find((s) => s.value === v)!;
      return { ...store, value: letValues.get(v)! };
    });
  }
  const updates = stores;
  const initOf = updates.map((u) => {
    const i = inits.find((x) => x.buffer === u.buffer);
    if (i === undefined) throw fail(10);
    return i;
  });
  const shape = updates[0]!.buffer.shape;
  const analyzer = new Analyzer();
  if (!updates.every((u) => u.buffer.shape.length === shape.length && u.buffer.shape.every((e, k) => analyzer.canProveEqual(e, shape[k]!)))) throw fail(11);
  const indices = updates[0]!.indices;
  const sameIndices = (xs: readonly PrimExpr[]) => xs.length === indices.length && xs.every((e, k) => analyzer.canProveEqual(e, indices[k]!));
  if (![...inits, ...updates].every((s) => sameIndices(s.indices))) throw fail(12);
  return { identities: initOf.map((i) => i.value), updates };
}

export interface MatchedReducer {
  readonly reducer: Reducer;
  /** The combiner's operands in the updates: `lhs[i]` is the load of the element buffer i updates. */
  readonly lhs: readonly PrimExpr[];
  readonly rhs: readonly PrimExpr[];
}

/** The first registered reducer whose identities and combiner pattern match the block (TVM's `FromIdentityCombiner`). */
export function matchReducer(parts: ReductionParts): MatchedReducer | undefined {
  const { identities, updates } = parts;
  const dts = identities.map((e) => e.dtype);
  for (const entry of REDUCERS) {
    if (entry.buffers !== updates.length) continue;
    const reducer = makeReducer(entry, dts);
    if (!reducer.identity.every((e, i) => sameExprStructure(e, identities[i]!))) continue;
    const holes = new Map<Var, PrimExpr>();
    const holeSet = new Set([...reducer.lhs, ...reducer.rhs]);
    if (!reducer.result.every((r, i) => matchPattern(r, updates[i]!.value, holeSet, holes))) continue;
    const lhs = reducer.lhs.map((v) => holes.get(v));
    const rhs = reducer.rhs.map((v) => holes.get(v));
    const loadsMatch = lhs.every((l, i) => l !== undefined && sameExprStructure(l, bufferLoad(updates[i]!.buffer, updates[i]!.indices)));
    if (!loadsMatch || rhs.some((r) => r === undefined)) continue;
    return { reducer, lhs: lhs as PrimExpr[], rhs: rhs as PrimExpr[] };
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
  if (pattern.kind === "Select" && expr.kind === "Select") {
    return (
      matchPattern(pattern.condition, expr.condition, holes, filled) &&
      matchPattern(pattern.trueValue, expr.trueValue, holes, filled) &&
      matchPattern(pattern.falseValue, expr.falseValue, holes, filled)
    );
  }
  return sameExprStructure(pattern, expr);
}
