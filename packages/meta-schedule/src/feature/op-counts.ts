/**
 * Arithmetic of one execution of a store, in TVM's 16 classes (float and integer multiply-adds,
 * add/sub, mul, div/mod, comparisons incl. min/max, math functions, other calls; boolean ops;
 * selects). A vector operation counts once per lane.
 */
import { type PrimExpr, UNARY_MATH, dtypeInfo } from "@tessera/ir";

export const ARITH_CLASSES = [
  "float_mad",
  "float_addsub",
  "float_mul",
  "float_divmod",
  "float_cmp",
  "float_math_func",
  "float_other_func",
  "int_mad",
  "int_addsub",
  "int_mul",
  "int_divmod",
  "int_cmp",
  "int_math_func",
  "int_other_func",
  "bool_op",
  "select_op",
] as const;

const MAD = 0;
const ADDSUB = 1;
const MUL = 2;
const DIVMOD = 3;
const CMP = 4;
const MATH = 5;
const OTHER = 6;
const INT_OFFSET = 7;
const BOOL = 14;
const SELECT = 15;

const MATH_FUNCS: ReadonlySet<string> = new Set<string>([...UNARY_MATH, "fabs", "pow"]);

function lanes(e: PrimExpr): number {
  return dtypeInfo(e.dtype).lanes;
}

function isFloatType(e: PrimExpr): boolean {
  return dtypeInfo(e.dtype).code === "float";
}

/** Adds the operation counts of `e` into `out` (length 16). */
export function countOps(e: PrimExpr, out: Float64Array): void {
  switch (e.kind) {
    case "Binary": {
      const isFloat = isFloatType(e.a);
      const base = isFloat ? 0 : INT_OFFSET;
      const n = lanes(e);
      if ((e.op === "add" || e.op === "sub") && (isMul(e.a) || isMul(e.b))) {
        out[base + MAD]! += n;
        const [product, other] = isMul(e.a) ? [e.a, e.b] : [e.b, e.a];
        if (product.kind === "Binary") {
          countOps(product.a, out);
          countOps(product.b, out);
        }
        countOps(other, out);
        return;
      }
      switch (e.op) {
        case "add":
        case "sub":
          out[base + ADDSUB]! += n;
          break;
        case "mul":
          out[base + MUL]! += n;
          break;
        case "div":
        case "mod":
        case "floordiv":
        case "floormod":
          out[base + DIVMOD]! += n;
          break;
        case "and":
        case "or":
          out[BOOL]! += n;
          break;
        default:
          out[base + CMP]! += n;
      }
      countOps(e.a, out);
      countOps(e.b, out);
      return;
    }
    case "Not":
      out[BOOL]! += lanes(e);
      countOps(e.a, out);
      return;
    case "Select":
      out[SELECT]! += lanes(e);
      countOps(e.condition, out);
      countOps(e.trueValue, out);
      countOps(e.falseValue, out);
      return;
    case "Call": {
      const base = isFloatType(e) ? 0 : INT_OFFSET;
      if (e.op === "if_then_else") out[SELECT]! += lanes(e);
      else out[base + (MATH_FUNCS.has(e.op) ? MATH : OTHER)]! += lanes(e);
      for (const a of e.args) countOps(a, out);
      return;
    }
    case "Cast":
      countOps(e.value, out);
      return;
    case "BufferLoad":
      return; // address arithmetic is counted on the accesses' indices (block bindings substituted)
    case "Ramp":
      countOps(e.base, out);
      countOps(e.stride, out);
      return;
    case "Broadcast":
      countOps(e.value, out);
      return;
    case "Let":
      countOps(e.value, out);
      countOps(e.body, out);
      return;
    default:
      return;
  }
}

function isMul(e: PrimExpr): boolean {
  return e.kind === "Binary" && e.op === "mul";
}

export const NUM_ARITH_CLASSES = ARITH_CLASSES.length;
export const FIRST_INT_CLASS = INT_OFFSET;
