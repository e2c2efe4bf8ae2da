/** The C spelling of the binary operators C and CUDA write as infix operators (the others are calls or helpers). */
import type { BinaryOp } from "@tessera/ir";

export const C_OPERATORS: Partial<Record<BinaryOp, string>> = {
  add: "+",
  sub: "-",
  mul: "*",
  div: "/",
  eq: "==",
  ne: "!=",
  lt: "<",
  le: "<=",
  gt: ">",
  ge: ">=",
  and: "&&",
  or: "||",
};
