/**
 * CPU targets for the C backend. `c` is the host: the generated C is compiled for the machine it
 * runs on (`-march=native`). TVM-style `llvm` names map to it: `llvm` is the host, and
 * `llvm -mcpu=NAME` compiles for that CPU (`-march=NAME`), e.g. `llvm -mcpu=skylake-avx512`.
 * `-num-cores=N` sets the threads OpenMP uses (default: every core).
 */
import { TargetError } from "../target/errors.js";

export interface CpuTarget {
  /** The name the target was created from (`c`, `llvm -mcpu=znver3`). */
  readonly name: string;
  readonly kind: "c";
  /** The `-march=` value: `native` for the host. */
  readonly march: string;
  /** OpenMP threads, or undefined for the OpenMP default (every core). */
  readonly numCores?: number | undefined;
}

/** True for names `cpuTarget` accepts: `c`, `llvm`, or either followed by `-key=value` options. */
export function isCpuTargetName(name: string): boolean {
  const head = name.trim().split(/\s+/)[0];
  return head === "c" || head === "llvm";
}

export function isCpuTarget(t: unknown): t is CpuTarget {
  return typeof t === "object" && t !== null && (t as { kind?: unknown }).kind === "c";
}

/** Resolves `c`, `llvm`, `llvm -mcpu=NAME`, `c -num-cores=2`, …; anything else is a TargetError. */
export function cpuTarget(name: string): CpuTarget {
  const words = name.trim().split(/\s+/);
  const head = words[0];
  if (head !== "c" && head !== "llvm") {
    throw new TargetError(`unknown CPU target "${name}"; CPU targets are "c" and "llvm", optionally with -mcpu=NAME and -num-cores=N`);
  }
  let march = "native";
  let numCores: number | undefined;
  for (const word of words.slice(1)) {
    const m = /^-{1,2}([a-z-]+)=(.+)$/.exec(word);
    if (m === null) throw new TargetError(`CPU target "${name}": option "${word}" is not of the form -key=value`);
    const [, key, value] = m as unknown as [string, string, string];
    if (key === "mcpu") {
      if (!/^[A-Za-z0-9_.-]+$/.test(value)) throw new TargetError(`CPU target "${name}": -mcpu=${value} is not a CPU name`);
      march = value;
    } else if (key === "num-cores") {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new TargetError(`CPU target "${name}": -num-cores must be a positive integer, got ${value}`);
      numCores = n;
    } else if (key === "mtriple" || key === "keys" || key === "mattr") {
      // Accepted for compatibility with TVM target strings; the C compiler picks the ISA from -march.
    } else {
      throw new TargetError(`CPU target "${name}": unknown option -${key} (known: -mcpu, -num-cores, -mtriple, -mattr, -keys)`);
    }
  }
  return { name: name.trim(), kind: "c", march, numCores };
}
