/** CSV as RFC 4180 writes it: fields quoted when they hold a comma, a quote or a line break. */

export function csvField(value: string | number | undefined): string {
  const text = value === undefined ? "" : String(value);
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The rows as one CSV text, CRLF line ends (what the RFC and spreadsheet programs expect). */
export function toCsv(rows: readonly (readonly (string | number | undefined)[])[]): string {
  return rows.map((row) => row.map(csvField).join(",") + "\r\n").join("");
}
