/** `--fp32-precision ieee|tf32|3xtf32`: the function with its float32 GEMMs in the requested precision (`withFp32Precision`). */
import type { PrimFunc } from "@tessera/ir";
import { parseFp32Precision, withFp32Precision } from "@tessera/meta-schedule";
import { CliError } from "./errors.js";

/** `func` rewritten for `--fp32-precision <text>` ("ieee" or absent: as it is); a bad value is a CliError naming the flag. */
export function withFp32PrecisionOption(func: PrimFunc, text: string | undefined): PrimFunc {
  if (text === undefined) return func;
  try {
    return withFp32Precision(func, parseFp32Precision(text));
  } catch (err) {
    if (err instanceof RangeError) throw new CliError(`--fp32-precision: ${err.message}`);
    throw err;
  }
}
