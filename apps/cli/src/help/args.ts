/** Parses a subcommand's arguments with node:util's parseArgs, from the options its spec declares. */
import { parseArgs } from "node:util";
import type { CommandSpec, OptionValues } from "./spec.js";

export interface ParsedArgs<S extends CommandSpec> {
  readonly positionals: readonly string[];
  readonly values: OptionValues<S>;
}

/** Unknown options and missing values throw parseArgs' ERR_PARSE_ARGS_* errors (exit 2 in runCli). */
export function parseCommandArgs<S extends CommandSpec>(spec: S, args: readonly string[]): ParsedArgs<S> {
  const options = Object.fromEntries(spec.options.map((o) => [o.name, { type: o.type }]));
  const { positionals, values } = parseArgs({ args: [...args], allowPositionals: true, strict: true, options });
  return { positionals, values: values as OptionValues<S> };
}
