/** `tessera --help` and `tessera NAME --help`, wrapped to the terminal's width. */
import type { CommandSpec, OptionSpec } from "./spec.js";
import { twoColumns, wrapIndented, wrapWords } from "./wrap.js";

/** The width help is wrapped to when the output is not a terminal (or reports no width). */
export const DEFAULT_HELP_WIDTH = 80;

/** Headings and the usage line can be styled (bold on a colour terminal); identity by default. */
export interface HelpStyle {
  readonly heading: (text: string) => string;
}

const PLAIN: HelpStyle = { heading: (t) => t };

export function formatOverview(specs: readonly CommandSpec[], width = DEFAULT_HELP_WIDTH, style: HelpStyle = PLAIN): string {
  const lines = [
    ...wrapWords("Usage: tessera <command> [arguments] [options]", width),
    "",
    style.heading("Commands:"),
    ...twoColumns(
      specs.map((s) => [s.name, s.summary]),
      width,
    ),
    "",
    style.heading("Options:"),
    ...twoColumns([["-h, --help", "show this help; 'tessera <command> --help' shows a command's options, defaults and exit codes"]], width),
    "",
    ...wrapWords(
      "Errors in the input exit with status 2 and name the file, line and column. Colour: on a terminal, off with NO_COLOR=1, forced with FORCE_COLOR=1.",
      width,
    ),
  ];
  return `${lines.join("\n")}\n`;
}

export function formatCommandHelp(spec: CommandSpec, width = DEFAULT_HELP_WIDTH, style: HelpStyle = PLAIN): string {
  const lines: string[] = [...wrapIndented(`Usage: tessera ${spec.name} ${spec.usage}`, width, 0)];
  for (const paragraph of spec.description) lines.push("", ...wrapWords(paragraph, width));
  const options: [string, string][] = [...spec.options.map((o) => [optionTerm(o), optionDescription(o)] as [string, string]), ["-h, --help", "show this help"]];
  lines.push("", style.heading("Options:"), ...twoColumns(options, width));
  for (const note of spec.notes ?? []) {
    lines.push("", style.heading(`${note.title}:`), ...note.lines.flatMap((l) => wrapIndented(l, width, 2)));
  }
  lines.push(
    "",
    style.heading("Exit codes:"),
    ...twoColumns(
      spec.exitCodes.map(([code, meaning]) => [String(code), meaning]),
      width,
    ),
  );
  return `${lines.join("\n")}\n`;
}

function optionTerm(o: OptionSpec): string {
  return o.type === "string" ? `--${o.name} ${o.value ?? "VALUE"}` : `--${o.name}`;
}

function optionDescription(o: OptionSpec): string {
  const extras = [...(o.required === true ? ["required"] : []), ...(o.default === undefined ? [] : [`default: ${o.default}`])];
  return extras.length === 0 ? o.description : `${o.description} (${extras.join("; ")})`;
}
