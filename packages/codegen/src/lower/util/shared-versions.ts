/**
 * Which elements of a shared buffer an access may touch, and a proof that a write of one pipeline
 * iteration misses what a read some iterations earlier touched. A software-pipelined loop over `k`
 * addresses the version of a multi-versioned buffer as `((k + c) % V) * s + rest` (flattened); two
 * accesses with the same `V` and `s` whose versions differ by a known `d ≢ 0 (mod V)` are disjoint
 * when their rests (bounded over every thread and inner loop: enumerated when there are few
 * combinations, else by intervals) cannot bridge `d·s` nor `(d − V)·s`.
 * Without a version term the accesses' whole intervals must be disjoint.
 */
import { type PrimExpr, type Var, add, evalIntBinary, floormod, forEachExpr, intImm } from "@tessera/ir";

/** `[lo, hi]` elements an access may touch; infinite ends when nothing is known. */
export interface Interval {
  readonly lo: number;
  readonly hi: number;
}

/** Elements `[offset, offset + extent)` of the buffer whose data is `data`. */
export interface SharedAccess {
  readonly data: Var;
  readonly offset: PrimExpr;
  readonly extent: number;
}

const UNKNOWN: Interval = { lo: -Infinity, hi: Infinity };

/** Bounds of an integer index expression, given each variable's range (unknown variables: unbounded). */
export function boundOf(e: PrimExpr, ranges: ReadonlyMap<Var, Interval>): Interval {
  switch (e.kind) {
    case "IntImm":
      return { lo: e.value, hi: e.value };
    case "Var":
      return ranges.get(e) ?? UNKNOWN;
    case "Cast":
      return boundOf(e.value, ranges);
    case "Binary": {
      const a = boundOf(e.a, ranges);
      const b = boundOf(e.b, ranges);
      switch (e.op) {
        case "add":
          return { lo: a.lo + b.lo, hi: a.hi + b.hi };
        case "sub":
          return { lo: a.lo - b.hi, hi: a.hi - b.lo };
        case "mul": {
          const products = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi].map((x) => (Number.isNaN(x) ? Infinity : x));
          return b.lo === b.hi || a.lo === a.hi ? { lo: Math.min(...products), hi: Math.max(...products) } : UNKNOWN;
        }
        case "div":
        case "floordiv":
          return b.lo === b.hi && b.lo > 0 && a.lo >= 0 ? { lo: Math.floor(a.lo / b.lo), hi: Math.floor(a.hi / b.lo) } : UNKNOWN;
        case "mod":
        case "floormod":
          if (!(b.lo === b.hi && b.lo > 0 && (a.lo >= 0 || e.op === "floormod"))) return UNKNOWN;
          return a.lo >= 0 && a.hi < b.lo ? a : { lo: 0, hi: b.lo - 1 };
        default:
          return UNKNOWN;
      }
    }
    case "Call": {
      if ((e.op !== "bitwise_xor" && e.op !== "bitwise_or") || e.args.length !== 2) return UNKNOWN;
      const [a, b] = e.args.map((x) => boundOf(x, ranges)) as [Interval, Interval];
      if (a.lo < 0 || b.lo < 0 || !Number.isFinite(a.hi) || !Number.isFinite(b.hi)) return UNKNOWN;
      // Neither operand sets a bit above the larger one's highest.
      return { lo: 0, hi: 2 ** Math.ceil(Math.log2(Math.max(a.hi, b.hi) + 1)) - 1 };
    }
    default:
      return UNKNOWN;
  }
}

/** `e` as a sum of terms, each with an integer coefficient. */
function terms(e: PrimExpr, coef = 1, out: { coef: number; expr: PrimExpr }[] = []): { coef: number; expr: PrimExpr }[] {
  if (e.kind === "Binary" && (e.op === "add" || e.op === "sub")) {
    terms(e.a, coef, out);
    terms(e.b, e.op === "sub" ? -coef : coef, out);
  } else if (e.kind === "Binary" && e.op === "mul" && e.b.kind === "IntImm") terms(e.a, coef * e.b.value, out);
  else if (e.kind === "Binary" && e.op === "mul" && e.a.kind === "IntImm") terms(e.b, coef * e.a.value, out);
  else out.push({ coef, expr: e });
  return out;
}

/** `(k + c) % versions` (or `k % versions`) as `c` and `versions`; undefined for any other form. */
function versionOf(e: PrimExpr, k: Var): { c: number; versions: number } | undefined {
  if (e.kind !== "Binary" || (e.op !== "floormod" && e.op !== "mod") || e.b.kind !== "IntImm" || e.b.value <= 0) return undefined;
  let c = 0;
  let ks = 0;
  for (const t of terms(e.a)) {
    if (t.expr === k && t.coef === 1) ks++;
    else if (t.expr.kind === "IntImm") c += t.coef * t.expr.value;
    else return undefined;
  }
  return ks === 1 ? { c, versions: e.b.value } : undefined;
}

/** Assignments enumerated at most to bound a rest exactly (a tile's copies: threads × copy loops). */
const ENUMERATION_LIMIT = 1 << 16;

/** The value of an integer index expression (with bitwise calls), undefined for anything else. */
function evaluate(e: PrimExpr, env: ReadonlyMap<Var, number>): number | undefined {
  switch (e.kind) {
    case "IntImm":
      return e.value;
    case "Var":
      return env.get(e);
    case "Cast":
      return evaluate(e.value, env);
    case "Binary": {
      const a = evaluate(e.a, env);
      const b = evaluate(e.b, env);
      return a === undefined || b === undefined ? undefined : evalIntBinary(e.op, a, b);
    }
    case "Call": {
      const [a, b] = e.args.map((x) => evaluate(x, env));
      if (e.args.length !== 2 || a === undefined || b === undefined) return undefined;
      if (e.op === "bitwise_xor") return a ^ b;
      if (e.op === "bitwise_and") return a & b;
      if (e.op === "bitwise_or") return a | b;
      return undefined;
    }
    default:
      return undefined;
  }
}

/** Bounds of `Σ coef·expr` over every value of its variables, exact when they are few. */
function boundOfSum(parts: readonly { coef: number; expr: PrimExpr }[], ranges: ReadonlyMap<Var, Interval>): Interval {
  const vars = new Set<Var>();
  for (const p of parts)
    forEachExpr({ kind: "Evaluate", value: p.expr }, (e) => {
      if (e.kind === "Var") vars.add(e);
    });
  const domain = [...vars].map((v) => [v, ranges.get(v) ?? UNKNOWN] as const);
  const count = domain.reduce((n, [, r]) => n * (r.hi - r.lo + 1), 1);
  if (Number.isFinite(count) && count <= ENUMERATION_LIMIT) {
    const env = new Map<Var, number>(domain.map(([v, r]) => [v, r.lo]));
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < count; i++) {
      let rest = i;
      for (const [v, r] of domain) {
        const size = r.hi - r.lo + 1;
        env.set(v, r.lo + (rest % size));
        rest = Math.floor(rest / size);
      }
      let sum = 0;
      for (const p of parts) {
        const x = evaluate(p.expr, env);
        if (x === undefined) return intervalOfSum(parts, ranges);
        sum += p.coef * x;
      }
      lo = Math.min(lo, sum);
      hi = Math.max(hi, sum);
    }
    return { lo, hi };
  }
  return intervalOfSum(parts, ranges);
}

function intervalOfSum(parts: readonly { coef: number; expr: PrimExpr }[], ranges: ReadonlyMap<Var, Interval>): Interval {
  let lo = 0;
  let hi = 0;
  for (const p of parts) {
    const b = boundOf(p.expr, ranges);
    lo += p.coef >= 0 ? p.coef * b.lo : p.coef * b.hi;
    hi += p.coef >= 0 ? p.coef * b.hi : p.coef * b.lo;
  }
  return Number.isNaN(lo) || Number.isNaN(hi) ? UNKNOWN : { lo, hi };
}

type Version = { readonly c: number; readonly versions: number; readonly stride: number };
type Term = { coef: number; expr: PrimExpr };

/** An offset as its version term `((k + c) % V) * stride`, its `coef * k` term and the rest. */
function decompose(offset: PrimExpr, k: Var | undefined): { mod?: Version; kTerm?: Term; others: Term[] } {
  let mod: Version | undefined;
  let kTerm: Term | undefined;
  const others: Term[] = [];
  for (const t of terms(offset)) {
    const v = k === undefined || mod !== undefined || t.coef <= 0 ? undefined : versionOf(t.expr, k);
    if (v !== undefined) mod = { ...v, stride: t.coef };
    else if (t.expr === k && kTerm === undefined) kTerm = t;
    else others.push(t);
  }
  return { mod, kTerm, others };
}

/** `[lo, hi]` of the rest plus the extent, widened to `atom` granules; unknown when unbounded. */
function restOf(rest: readonly Term[], extent: number, ranges: ReadonlyMap<Var, Interval>, atom: number): Interval {
  const b = boundOfSum(rest, ranges);
  if (!Number.isFinite(b.lo) || !Number.isFinite(b.hi)) return UNKNOWN;
  // Widened to whole atoms (a swizzled tile is read across its atom).
  return { lo: Math.floor(b.lo / atom) * atom, hi: Math.ceil((b.hi + extent) / atom) * atom - 1 };
}

const apart = (a: Interval, b: Interval, shift: number): boolean => a.hi + shift < b.lo || a.lo + shift > b.hi;

/**
 * Whether `write`, made `iterations` iterations of the loop over `k` after `read` (0: the same
 * iteration), cannot touch an element `read` touched. `read` widens to `atom`-element granules.
 * Without a loop (`k` undefined) the offsets are compared as they are.
 */
export function provablyDisjoint(
  write: SharedAccess,
  read: SharedAccess,
  iterations: number,
  k: Var | undefined,
  ranges: ReadonlyMap<Var, Interval>,
  atom: number,
): boolean {
  if (write.data !== read.data) return true;
  const w = decompose(write.offset, k);
  const r = decompose(read.offset, k);
  // `stride * k` is version k of V when k stays below V (the simplifier drops `% V` then).
  const range = k === undefined ? undefined : ranges.get(k);
  const asVersion = (own: typeof w, other: typeof w): Version | undefined =>
    own.mod ??
    (other.mod !== undefined && own.kTerm?.coef === other.mod.stride && range !== undefined && range.lo >= 0 && range.hi < other.mod.versions
      ? { c: 0, versions: other.mod.versions, stride: other.mod.stride }
      : undefined);
  const wv = asVersion(w, r);
  const rv = asVersion(r, w);
  const rest = (p: typeof w, v: Version | undefined): Term[] => (v === undefined && p.kTerm !== undefined ? [...p.others, p.kTerm] : p.others);
  if (wv === undefined || rv === undefined || wv.versions !== rv.versions || wv.stride !== rv.stride || wv.stride % atom !== 0) {
    // No common version structure: the whole offsets, over every k, must be apart.
    const all = (p: typeof w, v: Version | undefined): Term[] =>
      v === undefined ? rest(p, v) : [...p.others, { coef: v.stride, expr: floormod(add(k!, intImm(v.c)), intImm(v.versions)) }];
    return apart(restOf(all(w, wv), write.extent, ranges, 1), restOf(all(r, rv), read.extent, ranges, atom), 0);
  }
  const { versions, stride } = wv;
  const wRest = restOf(rest(w, wv), write.extent, ranges, 1);
  const rRest = restOf(rest(r, rv), read.extent, ranges, atom);
  // The read ran `iterations` earlier: its version is (k − iterations + c) % V at the write's k.
  const d = (((wv.c - (rv.c - iterations)) % versions) + versions) % versions;
  if (d === 0) return apart(wRest, rRest, 0);
  // The write's version minus the read's is d or d − versions.
  return apart(wRest, rRest, d * stride) && apart(wRest, rRest, (d - versions) * stride);
}
