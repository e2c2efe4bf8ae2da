/** Whole-number option values (`--seed`, `--trials`, `--search-workers`, …), refused with a message naming the flag. */
import { CliError } from "./errors.js";

/** 0 or more; undefined when the option is absent. */
export function parseNonNegativeInt(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new CliError(`${flag} expects a non-negative integer, got '${raw}'`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new CliError(`${flag} is too large: '${raw}'`);
  return n;
}

/** 1 or more; undefined when the option is absent. */
export function parsePositiveInt(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) === 0 || !Number.isSafeInteger(Number(raw))) throw new CliError(`${flag} expects a positive integer, got '${raw}'`);
  return Number(raw);
}
