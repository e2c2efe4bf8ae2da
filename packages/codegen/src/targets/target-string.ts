/**
 * TVM's target strings: a head word (`cuda`, `nvidia/a100`, `c`, `llvm`) followed by
 * `-key=value` options, e.g. `cuda -arch=sm_90 -max_threads_per_block=512`.
 */
import { TargetError } from "./errors.js";

export interface TargetString {
  /** The whole string, trimmed (`llvm -mcpu=znver3`). */
  readonly text: string;
  /** The first word: a kind (`cuda`, `c`, `llvm`) or a named target (`nvidia/a100`). */
  readonly head: string;
  /** The options in order, without their leading dashes. */
  readonly options: readonly (readonly [key: string, value: string])[];
}

/** Splits a target string into its head and options; an option not of the form `-key=value` is a TargetError. */
export function parseTargetString(spec: string): TargetString {
  const text = spec.trim();
  const [head = "", ...words] = text.split(/\s+/);
  if (head === "") throw new TargetError('empty target string; give a target such as "cuda", "nvidia/a100" or "c"');
  const options = words.map((word): readonly [string, string] => {
    const m = /^-{1,2}([A-Za-z_][A-Za-z0-9_-]*)=(.+)$/.exec(word);
    if (m === null) throw new TargetError(`target "${text}": option "${word}" is not of the form -key=value`);
    return [m[1]!, m[2]!];
  });
  return { text, head, options };
}
