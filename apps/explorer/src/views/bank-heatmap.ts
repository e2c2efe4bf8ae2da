/**
 * The simulator's shared-memory bank-conflict table as a heat map: one row per access site, the
 * cell coloured by wavefronts per ideal wavefront (1: conflict-free, white; n-way: towards red).
 */
import { el } from "../dom.js";
import type { BankConflictRow, Outcome } from "../protocol.js";

/** Wavefronts per ideal wavefront: the slowdown of the site's shared accesses. */
export function slowdown(row: BankConflictRow): number {
  return row.idealWavefronts === 0 ? 1 : row.wavefronts / row.idealWavefronts;
}

function heat(ratio: number): string {
  // 1 → white, 8 and more → full red.
  const t = Math.min(1, Math.max(0, (ratio - 1) / 7));
  const other = Math.round(255 * (1 - t));
  return `rgb(255, ${other}, ${other})`;
}

export function renderBankHeatmap(target: HTMLElement, rows: Outcome<readonly BankConflictRow[]>): void {
  if (!rows.ok) {
    target.replaceChildren(el("p", { class: "unavailable" }, rows.reason));
    return;
  }
  if (rows.value.length === 0) {
    target.replaceChildren(el("p", {}, "no shared-memory accesses"));
    return;
  }
  const head = el("tr", {}, ...["access", "buffer", "site", "wavefronts", "worst way", "× ideal"].map((h) => el("th", {}, h)));
  const body = rows.value.map((r) => {
    const ratio = slowdown(r);
    const cell = el("td", { class: "heat", style: `background: ${heat(ratio)}` }, `${ratio.toFixed(2)}×`);
    return el(
      "tr",
      { "data-slowdown": ratio.toFixed(2) },
      el("td", {}, r.access),
      el("td", {}, r.buffer),
      el("td", { class: "site" }, r.text),
      el("td", {}, String(r.wavefronts)),
      el("td", {}, `${r.worstWay}-way`),
      cell,
    );
  });
  target.replaceChildren(el("table", { class: "heatmap" }, head, ...body));
}
