/**
 * The inverse of a bijective affine iterator map (TVM's `InverseAffineIterMap`): given the iterator
 * sums that `detectIterMap` found for some indices and the expressions those indices take, express
 * every input iterator in terms of those expressions.
 *
 * As in TVM, values are propagated back through the map in reverse topological order (a fused
 * mark's sum is split into its digits only once every split of it has contributed), and the
 * expressions are built with constant folding only, not simplified: the primitives that print
 * them (reverse_compute_inline's store indices) then read as TVM's (`(vj + vi * 128) // 64 % 32`).
 */
import { type IterSplit, type IterSum, type PrimExpr, type Var, add, floordiv, floormod, intImm, mul, sub } from "@tessera/ir";

type Node = IterSum | IterSplit;

export function inverseAffineIterMap(sums: readonly IterSum[], outputs: readonly PrimExpr[]): Map<Var, PrimExpr> {
  const dtype = outputs[0]?.dtype ?? "int32";
  const order = reverseTopologicalOrder(sums);
  const back = new Map<Node, PrimExpr>(order.map((n) => [n, intImm(0, dtype)] as const));
  sums.forEach((s, k) => back.set(s, outputs[k]!));
  const inverse = new Map<Var, PrimExpr>();
  const accumulate = (n: Node, value: PrimExpr) => back.set(n, plus(back.get(n)!, value));
  for (const node of order) {
    if (node.kind === "IterSum") {
      const input = minus(back.get(node)!, node.base);
      if (node.args.length === 1) {
        const only = node.args[0]!;
        back.set(only, times(plus(back.get(only)!, input), only.scale));
        continue;
      }
      // Digits from the smallest scale up; the leading digit needs no floormod.
      const args = [...node.args].sort((a, b) => num(b.scale) - num(a.scale));
      for (let i = args.length - 1; i >= 0; i--) {
        const split = args[i]!;
        let digit = over(input, split.scale);
        if (i > 0) digit = modulo(digit, split.extent);
        accumulate(split, digit);
      }
    } else {
      const input = times(back.get(node)!, node.lowerFactor);
      const source = node.source.source;
      if (source.kind === "IterSum") accumulate(source, input);
      else if (source.kind === "Var") inverse.set(source, inverse.has(source) ? plus(inverse.get(source)!, input) : input);
      else if (source.kind === "Binary" && source.op === "sub" && source.a.kind === "Var") {
        // An input iterator with a non-zero minimum: its mark is the iterator shifted to 0.
        const v = source.a;
        inverse.set(v, plus(inverse.get(v) ?? intImm(0, v.dtype), plus(input, source.b)));
      }
    }
  }
  return inverse;
}

function reverseTopologicalOrder(sums: readonly IterSum[]): Node[] {
  const order: Node[] = [];
  const visited = new Set<Node>();
  const visit = (n: Node): void => {
    if (visited.has(n)) return;
    visited.add(n);
    if (n.kind === "IterSum") n.args.forEach(visit);
    else if (n.source.source.kind === "IterSum") visit(n.source.source);
    order.push(n);
  };
  sums.forEach(visit);
  return order.reverse();
}

function num(e: PrimExpr): number {
  if (e.kind !== "IntImm") throw new Error("internal error: iterator map with a symbolic factor");
  return e.value;
}

const constant = (e: PrimExpr): number | undefined => (e.kind === "IntImm" ? e.value : undefined);

// Constant folding as TVM's expression operators do it (0 + x, x * 1, x // 1, …), nothing more.
function plus(a: PrimExpr, b: PrimExpr): PrimExpr {
  const [x, y] = [constant(a), constant(b)];
  if (x !== undefined && y !== undefined) return intImm(x + y, a.dtype);
  if (x === 0) return b;
  if (y === 0) return a;
  return add(a, b);
}
function minus(a: PrimExpr, b: PrimExpr): PrimExpr {
  const [x, y] = [constant(a), constant(b)];
  if (x !== undefined && y !== undefined) return intImm(x - y, a.dtype);
  return y === 0 ? a : sub(a, b);
}
function times(a: PrimExpr, b: PrimExpr): PrimExpr {
  const [x, y] = [constant(a), constant(b)];
  if (x !== undefined && y !== undefined) return intImm(x * y, a.dtype);
  if (x === 0 || y === 0) return intImm(0, a.dtype);
  if (x === 1) return b;
  if (y === 1) return a;
  return mul(a, b);
}
function over(a: PrimExpr, b: PrimExpr): PrimExpr {
  const [x, y] = [constant(a), constant(b)];
  if (x !== undefined && y !== undefined && y !== 0) return intImm(Math.floor(x / y), a.dtype);
  return y === 1 ? a : floordiv(a, b);
}
function modulo(a: PrimExpr, b: PrimExpr): PrimExpr {
  const [x, y] = [constant(a), constant(b)];
  if (x !== undefined && y !== undefined && y !== 0) return intImm(((x % y) + y) % y, a.dtype);
  return y === 1 ? intImm(0, a.dtype) : floormod(a, b);
}
