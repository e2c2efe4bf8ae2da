/**
 * fuse(*loops): replaces a perfect chain of loops by one loop `i_j_k_fused` whose extent is the
 * product; the old variables become its digits (`fused // (ej*ek)`, `fused % (ej*ek) // ek`,
 * `fused % ek`), and block bindings are re-simplified.
 */
import { Analyzer, type For, type PrimExpr, type Var, floordiv, floormod, forLoop, intImm, mul, substituteStmt, variable } from "@tessera/ir";
import type { PrimitiveContext } from "../../context.js";
import { ScheduleError, ScheduleUsageError } from "../../errors.js";
import { type InstructionKind, registerInstruction, renderInput } from "../../instruction.js";
import { loopDomains, simplifyBlockBindings } from "../../analysis/loop-bindings.js";
import { replaceStmts } from "../../state/replace.js";
import type { LoopEntry } from "../../state/tree-index.js";
import { DependentLoopError, checkLoopStartsWithZero, checkNoAnnotationOrThreadBinding, dependentVar } from "./common.js";

export class OuterNotInnerParent extends ScheduleError {
  override name = "OuterNotInnerParent";
  constructor(outer: For, inner: For) {
    super("fuse", `The loops can't be fused because the outer loop ${outer.loopVar.name} is not the parent of the inner loop ${inner.loopVar.name}`, [
      outer,
      inner,
    ]);
  }
}

export class NotOnlyChildError extends ScheduleError {
  override name = "NotOnlyChildError";
  constructor(outer: For, inner: For) {
    super("fuse", `The loops can't be fused because the inner loop ${inner.loopVar.name} is not the only child of outer loop ${outer.loopVar.name}.`, [
      outer,
      inner,
    ]);
  }
}

const PRIMITIVE = "fuse";

/** Checks that the loops form a perfect chain, outermost first, that fuse may rewrite. */
function checkChain(entries: readonly LoopEntry[]): void {
  const outerVars = new Set<Var>();
  let outer: LoopEntry | undefined;
  for (const entry of entries) {
    const loop = entry.node;
    checkNoAnnotationOrThreadBinding(PRIMITIVE, loop);
    if (outer !== undefined) {
      if (entry.parent !== outer) throw new OuterNotInnerParent(outer.node, loop);
      if (outer.node.body !== loop) throw new NotOnlyChildError(outer.node, loop);
    }
    outer = entry;
    checkLoopStartsWithZero(PRIMITIVE, loop);
    const used = dependentVar(loop, outerVars, false);
    if (used !== undefined) throw new DependentLoopError(PRIMITIVE, loop, used.name);
    outerVars.add(loop.loopVar);
  }
}

function isOne(e: PrimExpr): boolean {
  return e.kind === "IntImm" && e.value === 1;
}

/** The value of each old loop variable in terms of the fused one. */
function digitValues(loops: readonly For[], fused: Var, analyzer: Analyzer): PrimExpr[] {
  const values: PrimExpr[] = new Array<PrimExpr>(loops.length);
  const zero = intImm(0, fused.dtype);
  let lower: PrimExpr = intImm(1, fused.dtype);
  for (let i = loops.length - 1; i > 0; i--) {
    const extent = loops[i]!.extent;
    const nextLower = analyzer.simplify(mul(extent, lower));
    const digit = floormod(fused, nextLower);
    values[i] = isOne(extent) ? zero : isOne(lower) ? digit : floordiv(digit, lower);
    lower = nextLower;
  }
  values[0] = isOne(loops[0]!.extent) ? zero : isOne(lower) ? fused : floordiv(fused, lower);
  return values;
}

function fuse(ctx: PrimitiveContext, inputs: readonly unknown[], preserveUnitIters: boolean) {
  if (inputs.length === 0) throw new ScheduleUsageError(PRIMITIVE, "'fuse' requires at least 1 loop(s)");
  const entries = inputs.map((rv, i) => ctx.loop(rv, PRIMITIVE, `loop ${i}`));
  checkChain(entries);
  const loops = entries.map((e) => e.node);

  const bits = Math.max(...loops.map((l) => (l.loopVar.dtype === "int64" ? 64 : 32)));
  const dtype = bits === 64 ? "int64" : "int32";
  const name = `${loops.map((l) => l.loopVar.name).join("_")}_fused`;
  const fused = variable(name, dtype);
  const analyzer = new Analyzer();
  const values = digitValues(loops, fused, analyzer);
  const lookup = new Map(loops.map((l, i) => [l.loopVar, values[i]!] as const));
  const body = substituteStmt(loops[loops.length - 1]!.body, (v) => lookup.get(v));
  const extent = analyzer.simplify(loops.slice(1).reduce<PrimExpr>((acc, l) => mul(acc, l.extent), loops[0]!.extent));
  const outer = ctx.index.loopsAbove(entries[0]!).map((l) => l.node);
  const loop = simplifyBlockBindings(forLoop(fused, extent, body), loopDomains(outer), preserveUnitIters);

  ctx.commit(replaceStmts(ctx.func.body, new Map([[loops[0]!, loop]]), undefined, ctx.index));
  return { outputs: [ctx.loopRV(ctx.index.entryOf(loop as For) as LoopEntry)] };
}

export const FUSE: InstructionKind = registerInstruction({
  name: "Fuse",
  method: "fuse",
  pure: false,
  singleOutput: true,
  attrNames: ["preserve_unit_iters"],
  apply(ctx, inputs, attrs) {
    return fuse(ctx, inputs, attrs[0] !== false && attrs[0] !== 0);
  },
  formatArgs(inputs) {
    return inputs.map(renderInput).join(", ");
  },
});
