/**
 * `setmaxnreg` (sm_90a): a warpgroup changes its registers per thread at run time, so that in a
 * warp-specialised kernel the producer warpgroup, which needs few, gives them to the consumer
 * warpgroups, which hold the accumulators (CUTLASS's sm90 kernels: producer 40, consumers 232).
 *
 *     T.ptx.setmaxnreg_dec(40)    # setmaxnreg.dec.sync.aligned.u32 40
 *     T.ptx.setmaxnreg_inc(232)   # setmaxnreg.inc.sync.aligned.u32 232
 *
 * The count is a constant multiple of 8 from 24 to 256; every thread of the warpgroup executes the
 * same one (`.sync.aligned`). It changes no value the kernel computes.
 */
import { IRError } from "./errors.js";
import type { Call } from "./expr.js";

export const SETMAXNREG_INC = "ptx.setmaxnreg_inc";
export const SETMAXNREG_DEC = "ptx.setmaxnreg_dec";

export function isSetmaxnreg(op: string): boolean {
  return op === SETMAXNREG_INC || op === SETMAXNREG_DEC;
}

/** The call's register count; an IRError naming the call when it is no constant multiple of 8 from 24 to 256. */
export function setmaxnregCount(call: Call): number {
  const arg = call.args[0];
  if (call.args.length !== 1 || arg?.kind !== "IntImm")
    throw new IRError(`T.${call.op} takes one integer constant (registers per thread), got ${call.args.length} arguments`);
  const n = arg.value;
  if (n % 8 !== 0 || n < 24 || n > 256) throw new IRError(`T.${call.op}(${n}): the register count must be a multiple of 8 from 24 to 256`);
  return n;
}
