/**
 * C targets, for the C/OpenMP backend (TVM's `c` and `llvm` CPU targets). `c` is the host: the
 * generated C is compiled for the machine it runs on (`-march=native`). TVM-style `llvm` names map to it: `llvm` is the host, and
 * `llvm -mcpu=NAME` compiles for that CPU (`-march=NAME`), e.g. `llvm -mcpu=skylake-avx512`.
 * `-num-cores=N` sets the threads OpenMP uses (default: every core).
 */
import { TargetError } from "./errors.js";
import type { TargetString } from "./target-string.js";

export interface CTarget {
  /** The name the target was created from (`c`, `llvm -mcpu=znver3`). */
  readonly name: string;
  readonly kind: "c";
  /** The `-march=` value: `native` for the host. */
  readonly march: string;
  /** OpenMP threads, or undefined for the OpenMP default (every core). */
  readonly numCores?: number | undefined;
}

/** The heads of C target strings. */
export const C_TARGET_NAMES: readonly string[] = ["c", "llvm"];

/** Resolves a parsed `c`, `llvm`, `llvm -mcpu=NAME`, `c -num-cores=2`, …; a bad option is a TargetError. */
export function resolveCTarget(spec: TargetString): CTarget {
  const name = spec.text;
  if (!C_TARGET_NAMES.includes(spec.head)) {
    throw new TargetError(`unknown C target "${name}"; C targets are "c" and "llvm", optionally with -mcpu=NAME and -num-cores=N`);
  }
  let march = "native";
  let numCores: number | undefined;
  for (const [key, value] of spec.options) {
    if (key === "mcpu") {
      if (!/^[A-Za-z0-9_.-]+$/.test(value)) throw new TargetError(`C target "${name}": -mcpu=${value} is not a CPU name`);
      march = value;
    } else if (key === "num-cores") {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new TargetError(`C target "${name}": -num-cores must be a positive integer, got ${value}`);
      numCores = n;
    } else if (key === "mtriple" || key === "keys" || key === "mattr") {
      // Accepted for compatibility with TVM target strings; the C compiler picks the ISA from -march.
    } else {
      throw new TargetError(`C target "${name}": unknown option -${key} (known: -mcpu, -num-cores, -mtriple, -mattr, -keys)`);
    }
  }
  return { name, kind: "c", march, numCores };
}
