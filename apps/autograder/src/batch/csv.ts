/**
 * CSV as RFC 4180 writes it: fields quoted when they hold a comma, a quote or a line break. A text
 * field that a spreadsheet would run as a formula (it starts with =, +, -, @, a tab or a carriage
 * return: a submission named `=1+1`) gets a leading single quote, as OWASP's "CSV injection"
 * advice says; numbers are written as they are.
 */

export type CsvValue = string | number | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(value: CsvValue): string {
  const text = value === undefined ? "" : typeof value === "number" ? String(value) : neutralizeFormula(value);
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

/** `text` as a spreadsheet shows it, never as a formula it runs. */
export function neutralizeFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** The rows as one CSV text, CRLF line ends (what the RFC and spreadsheet programs expect). */
export function toCsv(rows: readonly (readonly CsvValue[])[]): string {
  return rows.map((row) => row.map(csvField).join(",") + "\r\n").join("");
}
