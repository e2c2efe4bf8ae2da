/**
 * What a subcommand accepts, declared once: its argument parser (`parseCommandArgs`) and its
 * `--help` (`formatCommandHelp`) are both made from it, so help cannot leave an option out.
 */

export interface OptionSpec {
  /** Long name without dashes: `trace` for `--trace`. */
  readonly name: string;
  readonly type: "string" | "boolean";
  /** Placeholder of a string option's value in help: `N`, `FILE`, `DIR`. */
  readonly value?: string;
  readonly description: string;
  /** What applies when the option is left out (shown as "default: …"). */
  readonly default?: string;
  /** Shown as "(required)". */
  readonly required?: boolean;
}

export interface CommandSpec {
  readonly name: string;
  /** Everything after `tessera NAME` in the usage line. */
  readonly usage: string;
  /** One sentence for the command list of `tessera --help`. */
  readonly summary: string;
  /** Paragraphs of `tessera NAME --help` after the usage line. */
  readonly description: readonly string[];
  readonly options: readonly OptionSpec[];
  /** Titled lists such as "Targets" or "Trace formats": lines of text. */
  readonly notes?: readonly { readonly title: string; readonly lines: readonly string[] }[];
  readonly exitCodes: readonly (readonly [code: number, meaning: string])[];
}

/** The parsed values of a spec's options, typed by the options' names and types. */
export type OptionValues<S extends CommandSpec> = {
  readonly [O in S["options"][number] as O["name"]]?: O["type"] extends "string" ? string : boolean;
};
