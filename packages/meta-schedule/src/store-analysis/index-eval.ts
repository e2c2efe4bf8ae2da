/**
 * Integer evaluation of index expressions over loop variables, by intervals: each loop variable
 * has a range `[lo, hi]` (a point when lo = hi), and the result bounds the expression's values.
 * Cheap enough to call thousands of times per candidate; it over-approximates (as TVM's interval
 * sets do) where variables repeat or wrap through `floormod`. Anything that is not integer
 * arithmetic over loop variables (loads, floats, unknown variables) evaluates to 0.
 */
import type { PrimExpr, Var } from "@tessera/ir";

export interface Interval {
  lo: number;
  hi: number;
}

export type LoopEnv = Map<Var, Interval>;

// The evaluator returns the lower bound and leaves the upper bound in `hiOut`: no allocation per
// node, which matters at thousands of evaluations per candidate.
let hiOut = 0;

function floorDiv(aLo: number, aHi: number, bLo: number, bHi: number): number {
  if (bLo <= 0 && bHi >= 0) {
    hiOut = aHi; // a division by a range holding 0: keep the dividend's bound
    return aLo;
  }
  const v1 = Math.floor(aLo / bLo);
  const v2 = Math.floor(aLo / bHi);
  const v3 = Math.floor(aHi / bLo);
  const v4 = Math.floor(aHi / bHi);
  hiOut = Math.max(v1, v2, v3, v4);
  return Math.min(v1, v2, v3, v4);
}

function floorMod(aLo: number, aHi: number, bLo: number, bHi: number): number {
  if (bLo !== bHi || bLo <= 0) {
    hiOut = Math.max(0, Math.abs(bHi) - 1);
    return 0;
  }
  const m = bLo;
  const q = Math.floor(aLo / m);
  if (q === Math.floor(aHi / m)) {
    hiOut = aHi - q * m;
    return aLo - q * m;
  }
  hiOut = m - 1;
  return 0;
}

function ev(e: PrimExpr, env: LoopEnv): number {
  switch (e.kind) {
    case "IntImm":
      hiOut = e.value;
      return e.value;
    case "Var": {
      const r = env.get(e);
      if (r === undefined) {
        hiOut = 0;
        return 0;
      }
      hiOut = r.hi;
      return r.lo;
    }
    case "Cast":
      return ev(e.value, env);
    case "Broadcast":
      return ev(e.value, env);
    case "Ramp": {
      const baseLo = ev(e.base, env);
      const baseHi = hiOut;
      const sLo = ev(e.stride, env);
      const sHi = hiOut;
      const n = e.lanes - 1;
      hiOut = baseHi + Math.max(0, sHi * n);
      return baseLo + Math.min(0, sLo * n);
    }
    case "Binary": {
      const aLo = ev(e.a, env);
      const aHi = hiOut;
      const bLo = ev(e.b, env);
      const bHi = hiOut;
      switch (e.op) {
        case "add":
          hiOut = aHi + bHi;
          return aLo + bLo;
        case "sub":
          hiOut = aHi - bLo;
          return aLo - bHi;
        case "mul": {
          if (aLo === aHi && bLo === bHi) {
            hiOut = aLo * bLo;
            return hiOut;
          }
          const v1 = aLo * bLo;
          const v2 = aLo * bHi;
          const v3 = aHi * bLo;
          const v4 = aHi * bHi;
          hiOut = Math.max(v1, v2, v3, v4);
          return Math.min(v1, v2, v3, v4);
        }
        case "div":
        case "floordiv":
          return floorDiv(aLo, aHi, bLo, bHi);
        case "mod":
        case "floormod":
          return floorMod(aLo, aHi, bLo, bHi);
        case "min":
          hiOut = Math.min(aHi, bHi);
          return Math.min(aLo, bLo);
        case "max":
          hiOut = Math.max(aHi, bHi);
          return Math.max(aLo, bLo);
        default:
          hiOut = 1; // comparisons and logic: a boolean
          return 0;
      }
    }
    case "Select":
      return union(e.trueValue, e.falseValue, env);
    case "Call":
      if (e.op === "if_then_else" && e.args.length === 3) return union(e.args[1]!, e.args[2]!, env);
      hiOut = 0;
      return 0;
    case "Let":
      return ev(e.body, env);
    default:
      hiOut = 0;
      return 0;
  }
}

function union(a: PrimExpr, b: PrimExpr, env: LoopEnv): number {
  const aLo = ev(a, env);
  const aHi = hiOut;
  const bLo = ev(b, env);
  hiOut = Math.max(aHi, hiOut);
  return Math.min(aLo, bLo);
}

/** Bounds of `e` when each loop variable ranges over `env` (absent variables are 0). */
export function evalInterval(e: PrimExpr, env: LoopEnv): Interval {
  const lo = ev(e, env);
  return { lo, hi: hiOut };
}

/**
 * `e` compiled against `env`'s interval objects (which the caller mutates between calls): the
 * function returns the lower bound and leaves the upper bound for `lastUpperBound()`. Worth it
 * when one expression is evaluated many times (every loop level, every lane of a warp).
 */
export type CompiledBounds = () => number;

export function lastUpperBound(): number {
  return hiOut;
}

export function compileBounds(e: PrimExpr, env: LoopEnv): CompiledBounds {
  switch (e.kind) {
    case "IntImm": {
      const v = e.value;
      return () => {
        hiOut = v;
        return v;
      };
    }
    case "Var": {
      const r = env.get(e);
      if (r === undefined) return constantZero;
      return () => {
        hiOut = r.hi;
        return r.lo;
      };
    }
    case "Cast":
      return compileBounds(e.value, env);
    case "Broadcast":
      return compileBounds(e.value, env);
    case "Binary": {
      const a = compileBounds(e.a, env);
      const b = compileBounds(e.b, env);
      switch (e.op) {
        case "add":
          if (e.b.kind === "IntImm") {
            const c = e.b.value;
            return () => {
              const lo = a();
              hiOut += c;
              return lo + c;
            };
          }
          return () => {
            const aLo = a();
            const aHi = hiOut;
            const bLo = b();
            hiOut += aHi;
            return aLo + bLo;
          };
        case "sub":
          return () => {
            const aLo = a();
            const aHi = hiOut;
            const bLo = b();
            const bHi = hiOut;
            hiOut = aHi - bLo;
            return aLo - bHi;
          };
        case "mul":
          if (e.b.kind === "IntImm") {
            const c = e.b.value;
            return () => {
              const lo = a() * c;
              const hi = hiOut * c;
              hiOut = Math.max(lo, hi);
              return Math.min(lo, hi);
            };
          }
          break;
        case "floordiv":
        case "div":
          if (e.b.kind === "IntImm" && e.b.value > 0) {
            const c = e.b.value;
            return () => {
              const lo = Math.floor(a() / c);
              hiOut = Math.floor(hiOut / c);
              return lo;
            };
          }
          break;
        case "floormod":
        case "mod":
          if (e.b.kind === "IntImm" && e.b.value > 0) {
            const m = e.b.value;
            // The interpreter's rule, with the divisor's interval [m, m] known here.
            return () => {
              const lo = a();
              return floorMod(lo, hiOut, m, m);
            };
          }
          break;
        default:
          break;
      }
      return () => ev(e, env);
    }
    default:
      return () => ev(e, env);
  }
}

function constantZero(): number {
  hiOut = 0;
  return 0;
}
