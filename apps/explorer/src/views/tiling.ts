/**
 * The tiling of the output drawn on a canvas: one cell per element, its hue the thread block that
 * writes it, a checkerboard of the block's threads inside; white where no thread writes, red where
 * several do. The caption gives the tile of block 0 and of its thread 0.
 */
import { el } from "../dom.js";
import { NO_WRITER, type Outcome, SEVERAL_WRITERS, type Tiling } from "../protocol.js";

const CANVAS_PX = 256;
/** A 1-D output is drawn in rows of this many elements. */
const ROW = 64;

/** Rows and columns of the drawing: the last dimension across, the others folded down. */
function drawnShape(shape: readonly number[]): [rows: number, cols: number] {
  const total = shape.reduce((a, b) => a * b, 1);
  const cols = shape.length >= 2 ? shape[shape.length - 1]! : Math.min(ROW, total);
  return [Math.ceil(total / cols), cols];
}

/** The rows × columns extent of the elements matching `pick`, as drawn. */
export function tileExtent(t: Tiling, pick: (e: number) => boolean): string {
  const [, cols] = drawnShape(t.shape);
  let [r0, r1, c0, c1] = [Number.POSITIVE_INFINITY, -1, Number.POSITIVE_INFINITY, -1];
  for (let e = 0; e < t.blockOf.length; e++) {
    if (!pick(e)) continue;
    const r = Math.floor(e / cols);
    const c = e % cols;
    [r0, r1, c0, c1] = [Math.min(r0, r), Math.max(r1, r), Math.min(c0, c), Math.max(c1, c)];
  }
  return r1 < 0 ? "nothing" : `${r1 - r0 + 1}×${c1 - c0 + 1}`;
}

function colour(t: Tiling, e: number): string {
  const block = t.blockOf[e]!;
  if (block === NO_WRITER) return "#ffffff";
  if (block === SEVERAL_WRITERS) return "#d00000";
  const thread = t.threadOf[e]!;
  const tx = thread % t.block[0];
  const ty = Math.floor(thread / t.block[0]) % t.block[1];
  const hue = (block * 137.508) % 360;
  return `hsl(${hue.toFixed(0)}, 55%, ${(tx + ty) % 2 === 0 ? 62 : 76}%)`;
}

function draw(t: Tiling): HTMLCanvasElement {
  const [rows, cols] = drawnShape(t.shape);
  const cell = Math.max(1, Math.floor(CANVAS_PX / Math.max(rows, cols)));
  const canvas = el("canvas", { width: String(cols * cell), height: String(rows * cell), class: "tiling" });
  const ctx = canvas.getContext("2d");
  if (ctx === null) return canvas;
  for (let e = 0; e < t.blockOf.length; e++) {
    ctx.fillStyle = colour(t, e);
    ctx.fillRect((e % cols) * cell, Math.floor(e / cols) * cell, cell, cell);
  }
  return canvas;
}

export function renderTiling(target: HTMLElement, tiling: Outcome<Tiling>): void {
  if (!tiling.ok) {
    target.replaceChildren(el("p", { class: "unavailable" }, tiling.reason));
    return;
  }
  const t = tiling.value;
  const blockTile = tileExtent(t, (e) => t.blockOf[e] === 0);
  const threadTile = tileExtent(t, (e) => t.blockOf[e] === 0 && t.threadOf[e] === 0);
  const caption = el(
    "p",
    { "data-testid": "tiling-caption", "data-block-tile": blockTile, "data-thread-tile": threadTile },
    `${t.buffer} ${t.shape.join("×")}: grid ${t.grid.join("×")} blocks of ${t.block.join("×")} threads; block 0 writes ${blockTile}, its thread 0 ${threadTile}`,
  );
  target.replaceChildren(caption, draw(t));
}
