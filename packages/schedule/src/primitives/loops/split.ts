/**
 * split(loop, factors): replaces one loop by a nest of loops whose extents are the factors. The old
 * variable becomes `((i_0 * f1 + i_1) * f2 + i_2) …`; when the factors overshoot the extent, every
 * block realize under the loop gets the guard `T.where(… < extent)`. Block bindings are then
 * re-simplified (`vi = T.axis.spatial(2048, i_0 * 64 + i_1)`).
 */
import {
  Analyzer,
  type BlockRealize,
  IRMutator,
  type PrimExpr,
  type Stmt,
  type Var,
  add,
  and,
  floordiv,
  forLoop,
  intImm,
  lt,
  mul,
  rangeFromExtent,
  substituteStmt,
  variable,
} from "@tessera/ir";
import type { PrimitiveContext } from "../../context.js";
import { ScheduleError, ScheduleUsageError } from "../../errors.js";
import { type InstructionKind, registerInstruction, renderInput } from "../../instruction.js";
import { loopDomains, simplifyBlockBindings } from "../../analysis/loop-bindings.js";
import { replaceStmts } from "../../state/replace.js";
import type { LoopEntry } from "../../state/tree-index.js";
import { checkLoopStartsWithZero, checkNoAnnotationOrThreadBinding } from "./common.js";

export class NotSingleInferFactorError extends ScheduleError {
  override name = "NotSingleInferFactorError";
  constructor() {
    super("split", "Only one factor can be specified as -1 or none");
  }
}

export class NonPositiveFactorError extends ScheduleError {
  override name = "NonPositiveFactorError";
  constructor(factor: number, index: number) {
    super("split", `All the constant factors are required to be positive. However, the factor at position ${index} is ${factor}`);
  }
}

export class WrongFactorError extends ScheduleError {
  override name = "WrongFactorError";
}

const PRIMITIVE = "split";

/** The factors as integers, with the missing one (if any) inferred as ceil(extent / product). */
function resolveFactors(ctx: PrimitiveContext, loop: LoopEntry, raw: readonly unknown[]): PrimExpr[] {
  if (raw.length === 0) throw new ScheduleUsageError(PRIMITIVE, "split needs at least one factor");
  const dtype = loop.node.loopVar.dtype;
  let inferAt = -1;
  let product = 1;
  const known: (number | undefined)[] = raw.map((f, i) => {
    if (f === null || f === undefined) {
      if (inferAt !== -1) throw new NotSingleInferFactorError();
      inferAt = i;
      return undefined;
    }
    const value = ctx.value(f, PRIMITIVE, `factor ${i}`);
    if (value <= 0) throw new NonPositiveFactorError(value, i);
    product *= value;
    return value;
  });
  const analyzer = new Analyzer();
  const extent = loop.node.extent;
  let inferred: PrimExpr | undefined;
  if (inferAt !== -1) {
    inferred = analyzer.simplify(floordiv(add(extent, intImm(product - 1, dtype)), intImm(product, dtype)));
  } else if (!analyzer.canProveGreaterEqual(intImm(product, dtype), extent)) {
    throw new WrongFactorError(PRIMITIVE, `The product of factors is not larger than or equal to the extent of loop ${loop.node.loopVar.name}`, [loop.node]);
  }
  return known.map((v) => (v === undefined ? inferred! : intImm(v, dtype)));
}

/** `((v0 * f1 + v1) * f2 + v2) …`, without the `* 1` TVM's constant folding removes. */
function fusedValue(vars: readonly Var[], factors: readonly PrimExpr[]): PrimExpr {
  let value: PrimExpr = vars[0]!;
  for (let i = 1; i < vars.length; i++) {
    const f = factors[i]!;
    const scaled = f.kind === "IntImm" && f.value === 1 ? value : mul(value, f);
    value = add(scaled, vars[i]!);
  }
  return value;
}

/** ANDs a guard into the predicate of each block realize below (not inside nested blocks). */
class PredicateAppender extends IRMutator {
  constructor(private readonly guard: PrimExpr) {
    super();
  }
  override visitBlockRealize(s: BlockRealize): Stmt {
    const p = s.predicate;
    const isTrue = p.kind === "IntImm" && p.value !== 0;
    return { ...s, predicate: isTrue ? this.guard : and(p, this.guard) };
  }
}

function split(ctx: PrimitiveContext, inputs: readonly unknown[], preserveUnitIters: boolean, disablePredication: boolean) {
  const entry = ctx.loop(inputs[0], PRIMITIVE);
  const loop = entry.node;
  const factors = resolveFactors(ctx, entry, inputs.slice(1));
  checkNoAnnotationOrThreadBinding(PRIMITIVE, loop);
  checkLoopStartsWithZero(PRIMITIVE, loop);

  const dtype = loop.loopVar.dtype;
  const vars = factors.map((_, i) => variable(`${loop.loopVar.name}_${i}`, dtype));
  const value = fusedValue(vars, factors);
  const analyzer = new Analyzer();
  vars.forEach((v, i) => analyzer.bind(v, rangeFromExtent(factors[i]!)));

  let body = substituteStmt(loop.body, (v) => (v === loop.loopVar ? value : undefined));
  const guard = lt(value, loop.extent);
  if (!disablePredication && !analyzer.canProve(guard)) body = new PredicateAppender(guard).visitStmt(body);
  for (let i = vars.length - 1; i >= 0; i--) body = forLoop(vars[i]!, factors[i]!, body);
  const outer = ctx.index.loopsAbove(entry).map((l) => l.node);
  const nest = simplifyBlockBindings(body, loopDomains(outer), preserveUnitIters);

  ctx.commit(replaceStmts(ctx.func.body, new Map([[loop, nest]]), undefined, ctx.index));
  const outputs = [];
  let cur: Stmt = nest;
  for (let i = 0; i < vars.length; i++) {
    if (cur.kind !== "For") throw new Error("internal error: split produced a malformed loop nest");
    outputs.push(ctx.loopRV(ctx.index.entryOf(cur) as LoopEntry));
    cur = cur.body;
  }
  return { outputs };
}

export const SPLIT: InstructionKind = registerInstruction({
  name: "Split",
  method: "split",
  pure: false,
  singleOutput: false,
  attrNames: ["preserve_unit_iters", "disable_predication"],
  apply(ctx, inputs, attrs) {
    return split(ctx, inputs, attrs[0] !== false && attrs[0] !== 0, attrs[1] === true || attrs[1] === 1);
  },
  formatArgs(inputs, attrs) {
    const [loop, ...factors] = inputs;
    const preserve = attrs[0] !== false && attrs[0] !== 0;
    const disable = attrs[1] === true || attrs[1] === 1;
    const opts = preserve && !disable ? "" : `, { preserveUnitIters: ${preserve}, disablePredication: ${disable} }`;
    return `${renderInput(loop!)}, [${factors.map(renderInput).join(", ")}]${opts}`;
  },
});
