/** Checks of the numeric options of rules, postprocessors and mutators. */

/** Throws a RangeError naming the component and option unless `values` are positive integers (and some). */
export function checkPositiveInts(rule: string, option: string, values: readonly number[]): void {
  if (values.length === 0) throw new RangeError(`${rule}: ${option} must not be empty`);
  for (const v of values) {
    if (!Number.isInteger(v) || v <= 0) throw new RangeError(`${rule}: ${option} must hold positive integers, got ${String(v)}`);
  }
}
