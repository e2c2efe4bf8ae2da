/** The smallest and largest values of a dtype, as TVM's `min_value`/`max_value` give them. */
import { type DType, dtypeInfo } from "../dtype.js";
import { IRError } from "../errors.js";
import { type PrimExpr, constant } from "../expr.js";

const FLOAT_MAX: Readonly<Record<number, number>> = {
  16: 65504,
  32: 3.4028234663852886e38,
  64: Number.MAX_VALUE,
};

function limit(dtype: DType, which: "min" | "max"): PrimExpr {
  const info = dtypeInfo(dtype);
  if (info.lanes !== 1) throw new IRError(`${which}Value: ${dtype} is a vector type`);
  switch (info.code) {
    case "float":
      return constant(which === "min" ? -FLOAT_MAX[info.bits]! : FLOAT_MAX[info.bits]!, dtype);
    case "int":
      return constant(which === "min" ? -(2 ** (info.bits - 1)) : 2 ** (info.bits - 1) - 1, dtype);
    case "uint":
      return constant(which === "min" ? 0 : 2 ** info.bits - 1, dtype);
    case "bool":
      return constant(which === "min" ? 0 : 1, dtype);
    default:
      throw new IRError(`${which}Value: ${dtype} has no ${which}imum value`);
  }
}

export const minValue = (dtype: DType): PrimExpr => limit(dtype, "min");
export const maxValue = (dtype: DType): PrimExpr => limit(dtype, "max");
