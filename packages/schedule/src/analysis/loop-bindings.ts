/**
 * Re-simplifies the block bindings of a rewritten loop nest (TVM's `IterMapSimplifyBlockBinding`),
 * used after split and fuse: every block realize below the new loops gets its iterator values run
 * through iterator-map simplification with the domains of all loops above it.
 *
 * Two details make the printed result match TVM's:
 * - `preserveUnitIters` keeps extent-1 loop variables in the bindings (`i_0 * 64 + i_1 * 64 + i_2`
 *   for a split by `[2, 1, 64]`); the IR's `iterMapSimplify` always drops them, so their linear terms
 *   are put back at the place TVM's fused-iterator order gives them;
 * - `floormod(floordiv(x, a), b)` is rewritten to `floordiv(floormod(x, a * b), a)`, the canonical
 *   form TVM's simplifier leaves in bindings of fused loops.
 */
import {
  Analyzer,
  type BlockRealize,
  type For,
  type PrimExpr,
  type Range,
  type Stmt,
  type Var,
  add,
  forEachExpr,
  floordiv,
  floormod,
  intImm,
  iterMapSimplify,
  linearFormOf,
  mul,
  sameExprStructure,
  usesVar,
} from "@tessera/ir";
import { StatementMutator } from "../state/statement-mutator.js";

/** Simplifies the bindings of every block realize in `stmt`, given the domains of the loops around it. */
export function simplifyBlockBindings(stmt: Stmt, outerDomains: ReadonlyMap<Var, Range>, preserveUnitIters: boolean): Stmt {
  return new BindingSimplifier(new Map(outerDomains), preserveUnitIters).visitStmt(stmt);
}

/** The domains (`[min, min + extent)`) of `loops`, keyed by loop variable. */
export function loopDomains(loops: readonly For[]): Map<Var, Range> {
  return new Map(loops.map((l) => [l.loopVar, { min: l.min, extent: l.extent }] as const));
}

/** Only the bindings change (in visitBlockRealize), so expressions elsewhere are not walked. */
class BindingSimplifier extends StatementMutator {
  constructor(
    private readonly domains: Map<Var, Range>,
    private readonly preserveUnitIters: boolean,
  ) {
    super();
  }

  override visitFor(s: For): Stmt {
    this.domains.set(s.loopVar, { min: s.min, extent: s.extent });
    const out = super.visitFor(s);
    this.domains.delete(s.loopVar);
    return out;
  }

  override visitBlockRealize(s: BlockRealize): Stmt {
    const out = super.visitBlockRealize(s) as BlockRealize;
    if (out.iterValues.length === 0) return out;
    const values = simplifyBindings(out.iterValues, out.predicate, this.domains, this.preserveUnitIters);
    return values.every((v, k) => sameExprStructure(v, out.iterValues[k]!)) ? out : { ...out, iterValues: values };
  }
}

function simplifyBindings(values: readonly PrimExpr[], predicate: PrimExpr, domains: ReadonlyMap<Var, Range>, preserveUnitIters: boolean): PrimExpr[] {
  // Only the loops the bindings use: a symbolic loop elsewhere must not spoil the detection. The
  // variables are gathered in one walk, not one walk per loop.
  const mentioned = new Set<Var>();
  const note = (e: PrimExpr) => {
    if (e.kind === "Var") mentioned.add(e);
  };
  for (const e of values) forEachExpr(e, note);
  forEachExpr(predicate, note);
  const used = new Map<Var, Range>();
  for (const [v, r] of domains) if (mentioned.has(v)) used.set(v, r);
  const simplified = iterMapSimplify(values, used, predicate).map(canonicalDigits);
  if (!preserveUnitIters) return simplified;
  const unitVars = [...used].filter(([, r]) => isConst(r.extent, 1) && isConst(r.min, 0)).map(([v]) => v);
  return simplified.map((e, k) => (e === values[k] ? e : withUnitTerms(e, values[k]!, unitVars)));
}

function isConst(e: PrimExpr, value: number): boolean {
  return e.kind === "IntImm" && e.value === value;
}

/** `floormod(floordiv(x, a), b)` → `floordiv(floormod(x, a * b), a)`, recursively. */
function canonicalDigits(e: PrimExpr): PrimExpr {
  if (e.kind !== "Binary") return e;
  const a = canonicalDigits(e.a);
  const b = canonicalDigits(e.b);
  if (e.op === "floormod" && a.kind === "Binary" && a.op === "floordiv" && a.b.kind === "IntImm" && b.kind === "IntImm") {
    return floordiv(floormod(a.a, intImm(a.b.value * b.value, e.dtype)), a.b);
  }
  return a === e.a && b === e.b ? e : { ...e, a, b };
}

/**
 * Puts the unit-extent loop variables of `original` back into its simplified form. TVM's fused
 * iterator lists terms by decreasing scale, a unit iterator right after the other iterators of
 * the same scale. A unit variable that is not a plain linear term of `original` stays dropped.
 */
function withUnitTerms(simplified: PrimExpr, original: PrimExpr, unitVars: readonly Var[]): PrimExpr {
  const present = unitVars.filter((u) => usesVar(original, (x) => x === u));
  if (present.length === 0) return simplified;
  const origForm = linearFormOf(new Analyzer().simplify(original));
  const unitTerms: { atom: PrimExpr; coef: number }[] = [];
  for (const u of present) {
    const term = origForm.terms.find((t) => t.atom === u);
    if (term === undefined) continue;
    unitTerms.push({ atom: u, coef: term.coef });
  }
  if (unitTerms.length === 0) return simplified;
  const form = linearFormOf(simplified);
  const terms = form.terms.map((t) => ({ atom: t.atom, coef: t.coef }));
  for (const u of unitTerms) {
    const at = terms.findIndex((t) => t.coef < u.coef);
    terms.splice(at < 0 ? terms.length : at, 0, u);
  }
  let result: PrimExpr | undefined;
  for (const t of terms) {
    const term = t.coef === 1 ? t.atom : mul(t.atom, intImm(t.coef, t.atom.dtype));
    result = result === undefined ? term : add(result, term);
  }
  if (result === undefined) return simplified;
  return form.constant === 0 ? result : add(result, intImm(form.constant, result.dtype));
}
