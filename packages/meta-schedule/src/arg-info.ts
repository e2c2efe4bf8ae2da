/**
 * What a runner allocates for a candidate: one entry per parameter of the workload, in order
 * (TVM's `ArgInfo`, serialised as `["TENSOR", "float32", [2048, 2048]]`).
 */
import type { PrimFunc } from "@tessera/ir";
import { z } from "zod";

export interface TensorArgInfo {
  readonly kind: "TENSOR";
  readonly dtype: string;
  readonly shape: readonly number[];
}

export type ArgInfo = TensorArgInfo;

export type ArgInfoJSON = ["TENSOR", string, number[]];

export const ArgInfoJSONSchema = z.tuple([z.literal("TENSOR"), z.string(), z.array(z.number().int().nonnegative())]);

export function argInfoToJSON(a: ArgInfo): ArgInfoJSON {
  return ["TENSOR", a.dtype, [...a.shape]];
}

export function argInfoFromJSON(j: ArgInfoJSON): ArgInfo {
  return { kind: "TENSOR", dtype: j[1], shape: j[2] };
}

/** The arguments of `func`: its buffer parameters with constant shapes. */
export function argsInfoOf(func: PrimFunc): ArgInfo[] {
  return func.params.map((param) => {
    const buffer = func.bufferMap.get(param);
    if (buffer === undefined) throw new RangeError(`argsInfoOf: parameter ${param.name} of the workload is not a buffer; only tensor arguments can be tuned`);
    const shape = buffer.shape.map((d, k) => {
      if (d.kind !== "IntImm") throw new RangeError(`argsInfoOf: buffer ${buffer.name} has a symbolic extent in dimension ${k}; tuning needs constant shapes`);
      return d.value;
    });
    return { kind: "TENSOR", dtype: buffer.dtype, shape };
  });
}
