/**
 * The inverse of a bijective affine iterator map (TVM's `InverseAffineIterMap`): given the iterator
 * sums that `detectIterMap` found for some indices and the expressions those indices take, express
 * every input iterator in terms of those expressions. Each sum is peeled digit by digit (largest
 * scale first), the digits are summed back into their marks, and fused marks are peeled again until
 * the input iterators are reached.
 */
import {
  Analyzer,
  type IterMark,
  type IterSum,
  type PrimExpr,
  type Var,
  add,
  floordiv,
  floormod,
  intImm,
  mul,
  sub,
} from "@tessera/ir";

function num(e: PrimExpr): number {
  if (e.kind !== "IntImm") throw new Error("internal error: iterator map with a symbolic factor");
  return e.value;
}

export function inverseAffineIterMap(sums: readonly IterSum[], outputs: readonly PrimExpr[]): Map<Var, PrimExpr> {
  const markValues = new Map<IterMark, PrimExpr>();
  const pending: IterMark[] = [];
  const contribute = (mark: IterMark, value: PrimExpr): void => {
    const prev = markValues.get(mark);
    if (prev === undefined) pending.push(mark);
    markValues.set(mark, prev === undefined ? value : add(prev, value));
  };
  const peel = (sum: IterSum, value: PrimExpr): void => {
    const base = num(sum.base);
    const rest = base === 0 ? value : sub(value, intImm(base, value.dtype));
    const args = [...sum.args].sort((a, b) => num(b.scale) - num(a.scale));
    args.forEach((arg, k) => {
      const scale = num(arg.scale);
      let digit: PrimExpr = scale === 1 ? rest : floordiv(rest, scale);
      if (k > 0) digit = floormod(digit, num(arg.extent));
      const lower = num(arg.lowerFactor);
      contribute(arg.source, lower === 1 ? digit : mul(digit, lower));
    });
  };
  sums.forEach((s, k) => peel(s, outputs[k]!));

  // Fused marks are resolved after every digit of theirs has been collected: a mark is handled
  // only once no unresolved mark still refers to it.
  const result = new Map<Var, PrimExpr>();
  const analyzer = new Analyzer();
  const done = new Set<IterMark>();
  while (pending.length > 0) {
    const idx = pending.findIndex((m) => !pending.some((o) => o !== m && !done.has(o) && refersTo(o, m)));
    const mark = pending.splice(idx < 0 ? 0 : idx, 1)[0]!;
    done.add(mark);
    const value = markValues.get(mark)!;
    const source = mark.source;
    if (source.kind === "IterSum") {
      peel(source, value);
    } else if (source.kind === "Var") {
      result.set(source, analyzer.simplify(value));
    } else if (source.kind === "Binary" && source.op === "sub" && source.a.kind === "Var") {
      // An input iterator with a non-zero minimum is the mark shifted back.
      result.set(source.a, analyzer.simplify(add(value, source.b)));
    }
  }
  return result;
}

function refersTo(outer: IterMark, inner: IterMark): boolean {
  const source = outer.source;
  if (source.kind !== "IterSum") return false;
  return source.args.some((a) => a.source === inner || refersTo(a.source, inner));
}
