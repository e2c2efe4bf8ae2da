/**
 * Optional ANSI colouring of printed TVMScript. With colour off every function is the identity,
 * so plain output is byte-for-byte the uncoloured text.
 */
export interface Style {
  readonly keyword: (s: string) => string;
  readonly string: (s: string) => string;
  readonly number: (s: string) => string;
  readonly comment: (s: string) => string;
}

const identity = (s: string): string => s;

const paint =
  (code: string) =>
  (s: string): string =>
    `\x1b[${code}m${s}\x1b[0m`;

export const PLAIN_STYLE: Style = { keyword: identity, string: identity, number: identity, comment: identity };

export const ANSI_STYLE: Style = {
  keyword: paint("35;1"),
  string: paint("32"),
  number: paint("36"),
  comment: paint("90"),
};

/** The width a line occupies on a terminal: its length without colour escapes. */
export function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "").length;
}
