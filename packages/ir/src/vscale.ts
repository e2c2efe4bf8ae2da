/**
 * Scalable vector lanes (TVM's `vscale × k`, Arm SVE and RISC-V V): a Ramp or Broadcast stores them
 * as `lanes = -k` (see `DTypeInfo.lanes`); TVMScript writes them as the expression `T.vscale() * k`.
 */
import { type Call, type PrimExpr, call, intImm, mul } from "./expr.js";

/** `T.vscale()`: the hardware's vector-length multiple, known only when the program runs. */
export function vscale(): Call {
  return call("int32", "vscale", []);
}

export function isVScale(e: PrimExpr): boolean {
  return e.kind === "Call" && e.op === "vscale" && e.args.length === 0;
}

/** The expression `T.vscale() * k` of scalable lanes `-k`. */
export function scalableLanesExpr(lanes: number): PrimExpr {
  return mul(vscale(), intImm(-lanes, "int32"));
}

/** The lanes that `e` spells: a constant `n` gives n, `T.vscale() * k` (either order) gives -k. */
export function lanesOfExpr(e: PrimExpr): number | undefined {
  if (e.kind === "IntImm") return e.value;
  if (e.kind === "Binary" && e.op === "mul") {
    if (isVScale(e.a) && e.b.kind === "IntImm" && e.b.value >= 1) return -e.b.value;
    if (isVScale(e.b) && e.a.kind === "IntImm" && e.a.value >= 1) return -e.a.value;
  }
  if (isVScale(e)) return -1;
  return undefined;
}
