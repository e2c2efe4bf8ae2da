/** Word wrapping for help text: lines never exceed the terminal width unless one word does. */

/** The words of `text` laid into lines of at most `width` characters (a longer word gets a line of its own). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    if (line.length === 0) line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line.length > 0) lines.push(line);
  return lines.length > 0 ? lines : [""];
}

/** `text` wrapped to `width`, every line indented by `indent` spaces. */
export function wrapIndented(text: string, width: number, indent: number): string[] {
  const pad = " ".repeat(indent);
  return wrapWords(text, Math.max(width - indent, MIN_TEXT_WIDTH)).map((l) => pad + l);
}

/** Below this many characters a description column is unreadable: it moves under its term. */
const MIN_TEXT_WIDTH = 24;

/**
 * Two columns: each term at `indent`, its description at a shared column and wrapped with a
 * hanging indent. When the terminal is too narrow for that, or a term is too long for the column,
 * the description goes on the lines below its term, indented a little further.
 */
export function twoColumns(rows: readonly (readonly [term: string, description: string])[], width: number, indent = 2): string[] {
  const termWidth = Math.min(Math.max(0, ...rows.map(([t]) => t.length)), MAX_TERM_COLUMN);
  const column = indent + termWidth + 2;
  const sideBySide = width - column >= MIN_TEXT_WIDTH;
  const lines: string[] = [];
  for (const [term, description] of rows) {
    const head = " ".repeat(indent) + term;
    if (sideBySide && term.length <= termWidth) {
      const [first, ...rest] = wrapWords(description, width - column);
      lines.push(`${head.padEnd(column)}${first}`.trimEnd(), ...rest.map((l) => " ".repeat(column) + l));
    } else {
      lines.push(head, ...wrapIndented(description, width, indent + 4));
    }
  }
  return lines;
}

/** Terms longer than this get their description on the following lines. */
const MAX_TERM_COLUMN = 28;
