/**
 * TVM's plain-text table (`support::TablePrinter`): every cell right-aligned with one space of
 * padding on each side, columns joined by `|`, and separator rows drawn as dashes across the
 * whole width.
 */
export type TableRow = readonly string[] | "separator";

export function printTable(rows: readonly TableRow[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    if (row === "separator") continue;
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const totalWidth = widths.reduce((a, b) => a + b, 0) + 3 * widths.length - 1;
  return rows.map((row) => (row === "separator" ? "-".repeat(totalWidth) : widths.map((w, i) => ` ${(row[i] ?? "").padStart(w)} `).join("|"))).join("\n");
}
