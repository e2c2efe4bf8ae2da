/** GPU architecture names: "sm_90" (real, for CUBIN), "compute_90" (virtual, for PTX). */

export interface Arch {
  /** e.g. "90", "90a", "75" */
  number: string;
  sm: string;
  compute: string;
}

/** Accepts "sm_90", "sm_90a", "compute_75", "90", 90 or [9, 0]. */
export function parseArch(arch: string | number | readonly [number, number]): Arch {
  let n: string;
  if (typeof arch === "number") n = String(arch);
  else if (typeof arch === "string") {
    const m = /^(?:sm_|compute_)?(\d{2,3}[af]?)$/.exec(arch.trim());
    if (m === null) throw new RangeError(`invalid GPU architecture '${arch}' (expected e.g. sm_90 or compute_75)`);
    n = m[1] as string;
  } else n = `${arch[0]}${arch[1]}`;
  if (!/^\d{2,3}[af]?$/.test(n)) throw new RangeError(`invalid GPU architecture '${String(arch)}'`);
  return { number: n, sm: `sm_${n}`, compute: `compute_${n}` };
}
