/**
 * Warp-collective operations (the WMMA intrinsics) in a simulator that runs a block's threads one
 * after another. Every lane of a warp must execute the same sequence of collective calls with the
 * same arguments: the first lane to reach the n-th call of its warp performs it for the warp
 * (fragments are per-warp storage), each later lane checks that its n-th call is the same site
 * with the same arguments. At the end of a barrier interval every call must have been reached by
 * every lane of its warp (the hardware requires converged warps). A mismatch is a
 * `WarpDivergenceError`; a fragment used with the wrong role or shape a `FragmentMisuseError`.
 */
import { type Dim3, formatDim3, volume } from "../dims.js";
import { SimulationError } from "../errors.js";
import { type FragmentArray, type FragmentShape, fill, load, mma, roundingFor, store, tileDims } from "./fragment-ops.js";

export const WARP_SIZE = 32;

/** A collective call site of the kernel, as compiled. */
export interface CollectiveSite {
  /** The call as the IR prints it. */
  readonly text: string;
  /** Shape (and role) of the fragment operand for fill/load/store: from the call's m, n, k and the fragment's scope. */
  readonly shape?: FragmentShape;
  /** The fragment's element type (fill/load/store) or the accumulator's (mma). */
  readonly dtype: string;
  readonly colMajor?: boolean;
  /** mma: the roles of D, A, B, C from their scopes. */
  readonly roles?: readonly string[];
}

export class WarpDivergenceError extends SimulationError {
  override name = "WarpDivergenceError";
}

export class FragmentMisuseError extends SimulationError {
  override name = "FragmentMisuseError";
}

interface RecordedCall {
  readonly site: number;
  readonly key: readonly unknown[];
  readonly firstLane: number;
  lanes: number;
}

interface WarpState {
  readonly calls: RecordedCall[];
  readonly counts: Int32Array;
}

/** e.g. "a matrix_a fragment of m16n16k16". */
function describeShape(s: FragmentShape): string {
  return `${s.role === "accumulator" ? "an" : "a"} ${s.role} fragment of m${s.m}n${s.n}k${s.k}`;
}

type Writable = ArrayLike<number> & { [i: number]: number };

export class WarpCollectives {
  private block: Dim3 = [0, 0, 0];
  private warps = new Map<number, WarpState>();
  /** Per fragment allocation site, per warp: its storage in the current block. */
  private fragments = new Map<number, Map<number, FragmentArray>>();
  /** The shape each fragment tile was last given (by fill, load or mma), per array and tile. */
  private tileShapes = new WeakMap<FragmentArray, Map<number, FragmentShape>>();
  private readonly threads: number;

  constructor(
    private readonly kernel: string,
    private readonly blockDim: Dim3,
    private readonly sites: readonly CollectiveSite[],
  ) {
    this.threads = volume(blockDim);
  }

  startBlock(block: Dim3): void {
    this.block = block;
    this.warps.clear();
    this.fragments.clear();
  }

  /** The warp's storage of fragment allocation `alloc` (poisoned when first used in a block). */
  fragment(alloc: number, tx: number, ty: number, tz: number, size: number, float64: boolean): FragmentArray {
    const warp = this.linear(tx, ty, tz) >> 5;
    let perWarp = this.fragments.get(alloc);
    if (perWarp === undefined) this.fragments.set(alloc, (perWarp = new Map()));
    let array = perWarp.get(warp);
    if (array === undefined) perWarp.set(warp, (array = (float64 ? new Float64Array(size) : new Float32Array(size)).fill(Number.NaN)));
    return array;
  }

  fillFragment(site: number, tx: number, ty: number, tz: number, frag: FragmentArray, index: number, value: number): void {
    if (!this.enter(site, tx, ty, tz, [frag, index, value])) return;
    const s = this.sites[site]!;
    const [rows, cols] = tileDims(s.shape!);
    const base = this.tile(site, frag, index, rows * cols);
    fill(frag, base, rows * cols, roundingFor(s.dtype)(value));
    this.setShape(frag, index, s.shape!);
  }

  loadMatrix(site: number, tx: number, ty: number, tz: number, frag: FragmentArray, index: number, src: Writable, offset: number, ldm: number): void {
    if (!this.enter(site, tx, ty, tz, [frag, index, src, offset, ldm])) return;
    const s = this.sites[site]!;
    const [rows, cols] = tileDims(s.shape!);
    const tile = { array: src, offset, ldm, colMajor: s.colMajor === true };
    this.checkSpan(site, tile, rows, cols, src.length, "reads");
    load(frag, this.tile(site, frag, index, rows * cols), rows, cols, tile, roundingFor(s.dtype));
    this.setShape(frag, index, s.shape!);
  }

  storeMatrix(
    site: number,
    tx: number,
    ty: number,
    tz: number,
    frag: FragmentArray,
    index: number,
    dst: Writable,
    offset: number,
    ldm: number,
    dstDtype: string,
  ): void {
    if (!this.enter(site, tx, ty, tz, [frag, index, dst, offset, ldm])) return;
    const s = this.sites[site]!;
    const [rows, cols] = tileDims(s.shape!);
    this.expectShape(site, frag, index, s.shape!, "the stored fragment");
    const tile = { array: dst, offset, ldm, colMajor: s.colMajor === true };
    this.checkSpan(site, tile, rows, cols, dst.length, "writes");
    store(frag, this.tile(site, frag, index, rows * cols), rows, cols, tile, roundingFor(dstDtype));
  }

  mmaSync(
    site: number,
    tx: number,
    ty: number,
    tz: number,
    d: FragmentArray,
    di: number,
    a: FragmentArray,
    ai: number,
    b: FragmentArray,
    bi: number,
    c: FragmentArray,
    ci: number,
  ): void {
    if (!this.enter(site, tx, ty, tz, [d, di, a, ai, b, bi, c, ci])) return;
    const s = this.sites[site]!;
    const shapeA = this.shapeOf(site, a, ai, "A");
    const shapeB = this.shapeOf(site, b, bi, "B");
    const shapeC = this.shapeOf(site, c, ci, "C");
    const { m, n, k } = shapeA;
    const expected = { m, n, k };
    for (const [name, sh, role] of [
      ["A", shapeA, "matrix_a"],
      ["B", shapeB, "matrix_b"],
      ["C", shapeC, "accumulator"],
    ] as const) {
      if (sh.role !== role || sh.m !== m || sh.n !== n || sh.k !== k) {
        this.misuse(site, `operand ${name} is ${describeShape(sh)}, the operation needs ${describeShape({ role, ...expected })}`);
      }
    }
    const tileOf = (frag: FragmentArray, index: number, elements: number) => ({ frag, base: this.tile(site, frag, index, elements) });
    mma(tileOf(d, di, m * n), tileOf(a, ai, m * k), tileOf(b, bi, k * n), tileOf(c, ci, m * n), m, n, k, roundingFor(s.dtype));
    this.setShape(d, di, { role: "accumulator", m, n, k });
  }

  /** Checks that every collective call of the interval was reached by every lane of its warp. */
  endInterval(): void {
    for (const [warp, state] of this.warps) {
      const lanes = Math.min(WARP_SIZE, this.threads - warp * WARP_SIZE);
      const call = state.calls.find((c) => c.lanes !== lanes);
      if (call !== undefined) {
        const missing = Array.from(state.counts.subarray(0, lanes)).findIndex((n) => n <= state.calls.indexOf(call));
        this.diverged(
          warp,
          `${call.lanes} of its ${lanes} lanes executed ${this.sites[call.site]!.text}; lane ${missing} did not (a warp-collective operation needs every lane of the warp)`,
        );
      }
    }
    this.warps.clear();
  }

  /** True when this lane is the first of its warp to make this call (it performs it). */
  private enter(site: number, tx: number, ty: number, tz: number, key: readonly unknown[]): boolean {
    const lin = this.linear(tx, ty, tz);
    const warp = lin >> 5;
    const lane = lin & 31;
    let state = this.warps.get(warp);
    if (state === undefined) this.warps.set(warp, (state = { calls: [], counts: new Int32Array(WARP_SIZE) }));
    const n = state.counts[lane]!++;
    const recorded = state.calls[n];
    if (recorded === undefined) {
      state.calls.push({ site, key, firstLane: lane, lanes: 1 });
      return true;
    }
    if (recorded.site !== site) {
      this.diverged(warp, `lane ${lane} executed ${this.sites[site]!.text} where lane ${recorded.firstLane} executed ${this.sites[recorded.site]!.text}`);
    }
    const differs = key.findIndex((v, i) => v !== recorded.key[i]);
    if (differs >= 0) {
      this.diverged(
        warp,
        `lane ${lane} passed ${String(key[differs])} as argument ${differs} of ${this.sites[site]!.text} where lane ${recorded.firstLane} passed ${String(recorded.key[differs])}`,
      );
    }
    recorded.lanes++;
    return false;
  }

  private linear(tx: number, ty: number, tz: number): number {
    return tx + this.blockDim[0] * (ty + this.blockDim[1] * tz);
  }

  private tile(site: number, frag: FragmentArray, index: number, elements: number): number {
    const base = index * elements;
    if (!Number.isInteger(index) || index < 0 || base + elements > frag.length) {
      this.misuse(site, `fragment index ${index} is outside its array of ${Math.floor(frag.length / elements)} fragments of ${elements} elements`);
    }
    return base;
  }

  private checkSpan(site: number, t: { offset: number; ldm: number; colMajor: boolean }, rows: number, cols: number, length: number, what: string): void {
    const [outer, inner] = t.colMajor ? [cols, rows] : [rows, cols];
    const last = t.offset + (outer - 1) * t.ldm + inner - 1;
    if (t.offset < 0 || last >= length || t.ldm < inner) {
      this.misuse(site, `it ${what} elements ${t.offset}..${last} with leading dimension ${t.ldm} of an array of ${length}`);
    }
  }

  private setShape(frag: FragmentArray, index: number, shape: FragmentShape): void {
    let shapes = this.tileShapes.get(frag);
    if (shapes === undefined) this.tileShapes.set(frag, (shapes = new Map()));
    shapes.set(index, shape);
  }

  private shapeOf(site: number, frag: FragmentArray, index: number, operand: string): FragmentShape {
    const shape = this.tileShapes.get(frag)?.get(index);
    if (shape === undefined) this.misuse(site, `operand ${operand} (fragment ${index}) was never filled or loaded`);
    return shape;
  }

  private expectShape(site: number, frag: FragmentArray, index: number, expected: FragmentShape, what: string): void {
    const shape = this.shapeOf(site, frag, index, what);
    if (shape.role !== expected.role || shape.m !== expected.m || shape.n !== expected.n || shape.k !== expected.k) {
      this.misuse(site, `${what} is ${describeShape(shape)}, the call is for ${describeShape(expected)}`);
    }
  }

  private where(warp: number): string {
    return `kernel ${this.kernel}, block ${formatDim3(this.block)}, warp ${warp}`;
  }

  private diverged(warp: number, detail: string): never {
    throw new WarpDivergenceError(`${this.where(warp)}: ${detail}`);
  }

  private misuse(site: number, detail: string): never {
    throw new FragmentMisuseError(`kernel ${this.kernel}, block ${formatDim3(this.block)}: ${this.sites[site]!.text}: ${detail}`);
  }
}
