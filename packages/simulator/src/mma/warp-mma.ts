/**
 * The mma.sync intrinsics in the simulator, on each thread's own registers (after
 * lowerWarpMemory a fragment is a `local` array per thread), with the PTX ISA's fragment layouts
 * (ptx-layouts.ts):
 * - ldmatrix and mma are warp-collective: each lane arrives with its operands and yields
 *   (`COLLECTIVE_YIELD`); when every lane of its warp waits at the same call, the block runner
 *   calls `complete`, which performs it with all the lanes' operands;
 * - fill and store touch only the calling lane's registers and run at once;
 * - a wgmma is performed when issued, but its group stays in flight (per warp) until a
 *   `wgmma.wait_group` retires it; at the barrier after that (the end of the interval) what the
 *   group read must still be in shared memory: a write into a tile an in-flight group reads, which
 *   the hardware may see or not, is a FragmentMisuseError. An mbarrier arrival by a lane of the
 *   warp checks its retired groups at once and hands the order on to the mbarrier (a producer
 *   refills the tile after waiting for that phase: mbarrier-runtime.ts);
 * The MMA multiplies and adds in the accumulator's type one k at a time in k order, as the
 * unscheduled reduction does (the hardware's order is unspecified), so a tensorized fp16 GEMM has
 * the executor's bits. A tf32 MMA reads registers that must already hold tf32 values (the tf32
 * fragment loads round them); any other value is a FragmentMisuseError, as the hardware's reading of
 * the low mantissa bits is not specified.
 */
import { roundToTF32 } from "@tessera/ir";
import { INACTIVE } from "../bank-model.js";
import type { BankConflictRecorder } from "../bank-recorder.js";
import { type Dim3, formatDim3 } from "../dims.js";
import { FragmentMisuseError, WARP_SIZE, WarpDivergenceError } from "../wmma/warp-collectives.js";
import { roundingFor } from "../wmma/fragment-ops.js";
import { M16N8K8_TF32, type MmaShape, ldmatrixSource } from "./ptx-layouts.js";
import { type WgmmaOperands, type WgmmaRead, type WgmmaSite, warpWgmma } from "./warp-wgmma.js";

/** What a thread yields when it waits at a warp-collective call. */
export const COLLECTIVE_YIELD = -2;

type Registers = ArrayLike<number> & { [i: number]: number };

export interface LdmatrixSite {
  readonly kind: "ldmatrix";
  readonly text: string;
  readonly matrices: 1 | 2 | 4;
  readonly trans: boolean;
  /** Bytes of one element of the source and destination: 2, or 4 (32-bit elements moved as b16 pairs, never transposed). */
  readonly elementBytes: 2 | 4;
  /** Its row of the bank-conflict report (with the bank model). */
  readonly bankSite?: number;
}

export interface MmaSyncSite {
  readonly kind: "mma";
  readonly text: string;
  readonly shape: MmaShape;
  readonly tf32: boolean;
  /** The accumulator's element type. */
  readonly accumulator: string;
}

/**
 * `T.cuda.mma_tf32x3`: three m16n8k8 tf32 MMAs into one accumulator, modelled one k at a time in k
 * order as the unscheduled 3xTF32 block adds: C += (lo_a·hi_b + hi_a·lo_b) + hi_a·hi_b.
 */
export interface MmaTf32x3Site {
  readonly kind: "mma_tf32x3";
  readonly text: string;
}

/** A fill or store: the calling lane alone. */
export interface MmaStoreSite {
  readonly kind: "fill" | "store";
  readonly text: string;
}

export type WarpMmaSite = LdmatrixSite | MmaSyncSite | MmaTf32x3Site | MmaStoreSite | WgmmaSite;

interface Arrival {
  readonly site: number;
  readonly operands: readonly unknown[];
}

/** Bytes of one ldmatrix row (8 × 16 bits). */
const ROW_BYTES = 16;

/** A warp's wgmma groups: reads of the wgmmas not yet committed, then the committed groups in flight, oldest first. */
interface WgmmaGroups {
  open: { site: number; reads: WgmmaRead[] }[];
  committed: { site: number; reads: WgmmaRead[] }[][];
}

export class WarpMma {
  private block: Dim3 = [0, 0, 0];
  private readonly arrivals = new Map<number, (Arrival | undefined)[]>();
  private readonly wgmmaGroups = new Map<number, WgmmaGroups>();
  /** Groups retired since the last barrier, checked at it. */
  private retired: { warp: number; site: number; reads: WgmmaRead[] }[] = [];

  constructor(
    private readonly kernel: string,
    private readonly blockDim: Dim3,
    private readonly sites: readonly WarpMmaSite[],
    private readonly banks?: BankConflictRecorder,
  ) {}

  startBlock(block: Dim3): void {
    this.block = block;
    this.arrivals.clear();
    this.wgmmaGroups.clear();
    this.retired = [];
  }

  private groupsOf(tx: number, ty: number, tz: number): WgmmaGroups | undefined {
    const t = this.linear(tx, ty, tz);
    if (t % WARP_SIZE !== 0) return undefined;
    const warp = t / WARP_SIZE;
    let g = this.wgmmaGroups.get(warp);
    if (g === undefined) this.wgmmaGroups.set(warp, (g = { open: [], committed: [] }));
    return g;
  }

  /** `wgmma.commit_group` (every lane calls it; lane 0 keeps the warp's groups). */
  wgmmaCommit(tx: number, ty: number, tz: number): void {
    const g = this.groupsOf(tx, ty, tz);
    if (g === undefined) return;
    g.committed.push(g.open);
    g.open = [];
  }

  /** `wgmma.wait_group pending`: all but the `pending` most recent groups are retired. */
  wgmmaWait(pending: number, tx: number, ty: number, tz: number): void {
    const g = this.groupsOf(tx, ty, tz);
    if (g === undefined) return;
    const warp = this.linear(tx, ty, tz) / WARP_SIZE;
    for (const group of g.committed.splice(0, Math.max(0, g.committed.length - pending)))
      for (const w of group) {
        // Registers (A of the register-A form) are the lane's own: checked now, while the shared tiles wait for the barrier.
        this.checkUnchanged(
          warp,
          w.site,
          w.reads.filter((r) => r.registers === true),
          "register",
        );
        this.retired.push({ warp, ...w });
      }
  }

  /** What the retired wgmma read is as it was read; `what` names the storage in the error. */
  private checkUnchanged(warp: number, site: number, reads: readonly WgmmaRead[], what: string): void {
    for (const r of reads)
      for (let i = 0; i < r.at.length; i++) {
        const at = r.at[i]!;
        const now = r.array[at]!;
        if (!Object.is(now, r.values[i]) && !(Number.isNaN(now) && Number.isNaN(r.values[i]!)))
          this.misuse(
            warp,
            site,
            `${what} element ${at} that an in-flight wgmma group read (${r.values[i]}) was overwritten (${now}) before wgmma.wait_group retired the group`,
          );
      }
  }

  /**
   * An mbarrier arrival by linear thread `thread`: the groups its warp retired so far are published
   * through the barrier, so what they read is checked now and then left to the mbarrier's order
   * (the thread that refills the tile waits for the phase this arrival completes) instead of the
   * next block-wide barrier's.
   */
  releaseRetired(thread: number): void {
    const warp = Math.floor(thread / WARP_SIZE);
    const [mine, others] = [this.retired.filter((r) => r.warp === warp), this.retired.filter((r) => r.warp !== warp)];
    if (mine.length === 0) return;
    this.checkRetiredShared(mine);
    this.retired = others;
  }

  /** At a barrier (and the block's end): the tiles the groups retired since the last one read are as they were read. */
  endInterval(): void {
    this.checkRetiredShared(this.retired);
    this.retired = [];
  }

  /** The shared tiles the retired groups read are as they were read (registers were checked at the wait). */
  private checkRetiredShared(retired: readonly { warp: number; site: number; reads: WgmmaRead[] }[]): void {
    for (const { warp, site, reads } of retired)
      this.checkUnchanged(
        warp,
        site,
        reads.filter((r) => r.registers !== true),
        "shared",
      );
  }

  /** A lane reaches a collective call with its operands (arrays and element offsets). */
  arrive(site: number, tx: number, ty: number, tz: number, ...operands: unknown[]): void {
    const t = this.linear(tx, ty, tz);
    const warp = Math.floor(t / WARP_SIZE);
    let lanes = this.arrivals.get(warp);
    if (lanes === undefined) this.arrivals.set(warp, (lanes = new Array<Arrival | undefined>(WARP_SIZE).fill(undefined)));
    lanes[t % WARP_SIZE] = { site, operands };
  }

  /** Performs the call every lane of `warp` waits at; `threads`: how many threads the warp has. */
  complete(warp: number, threads: number): void {
    const lanes = this.arrivals.get(warp) ?? [];
    this.arrivals.delete(warp);
    const site = lanes[0]?.site ?? -1;
    if (threads !== WARP_SIZE)
      this.misuse(warp, site, `mma.sync and ldmatrix need a full warp of ${WARP_SIZE} threads; this warp has ${threads} (block ${formatDim3(this.blockDim)})`);
    const arrived = lanes.filter((a): a is Arrival => a !== undefined);
    const other = arrived.find((a) => a.site !== site);
    if (arrived.length !== WARP_SIZE || other !== undefined) {
      const detail =
        other !== undefined ? `${this.siteText(site)} and ${this.siteText(other.site)}` : `${this.siteText(site)} (${arrived.length} of ${WARP_SIZE} lanes)`;
      throw new WarpDivergenceError(`${this.where(warp)}: the lanes of the warp reach different warp-collective calls: ${detail}`);
    }
    const s = this.sites[site]!;
    if (s.kind === "ldmatrix") this.ldmatrix(warp, site, s, arrived);
    else if (s.kind === "mma") this.mma(warp, site, s, arrived);
    else if (s.kind === "mma_tf32x3") this.mmaTf32x3(warp, site, arrived);
    else if (s.kind === "wgmma") {
      const reads = warpWgmma(
        warp,
        s,
        arrived.map((a) => a.operands as WgmmaOperands),
        (detail) => this.misuse(warp, site, detail),
      );
      let g = this.wgmmaGroups.get(warp);
      if (g === undefined) this.wgmmaGroups.set(warp, (g = { open: [], committed: [] }));
      g.open.push({ site, reads });
    }
  }

  /** `T.cuda.mma_fill_legacy(n, C, off)`: the lane's n accumulator registers become 0. */
  fill(site: number, tx: number, ty: number, tz: number, regs: Registers, offset: number, count: number): void {
    if (offset < 0 || offset + count > regs.length) {
      const t = this.linear(tx, ty, tz);
      this.misuse(Math.floor(t / WARP_SIZE), site, `lane ${t % WARP_SIZE}'s ${count} registers from ${offset} are outside its ${regs.length}`);
    }
    for (let i = 0; i < count; i++) regs[offset + i] = 0;
  }

  /**
   * `T.cuda.mma_store_legacy(16, 16, dst, W, off, stride)`: the lane writes its 8 registers of a
   * 16×16 accumulator tile (two m16n8 halves) to `dst`, row stride `stride`.
   */
  store(
    site: number,
    tx: number,
    ty: number,
    tz: number,
    dst: Registers,
    dstOffset: number,
    stride: number,
    regs: Registers,
    offset: number,
    dtype: string,
  ): void {
    const t = this.linear(tx, ty, tz);
    const lane = t % WARP_SIZE;
    const round = roundingFor(dtype);
    for (let r = 0; r < 8; r++) {
      const row = (lane >> 2) + 8 * ((r & 3) >> 1);
      const col = 2 * (lane & 3) + (r & 1) + 8 * (r >> 2);
      const at = dstOffset + row * stride + col;
      if (at < 0 || at >= dst.length)
        this.misuse(Math.floor(t / WARP_SIZE), site, `lane ${lane} stores element (${row}, ${col}) at ${at}, outside its buffer of ${dst.length}`);
      dst[at] = round(regs[offset + r]!);
    }
  }

  private ldmatrix(warp: number, site: number, s: LdmatrixSite, lanes: readonly Arrival[]): void {
    // Elements of one row: each lane receives a quarter of a row of each matrix.
    const ROW = ROW_BYTES / s.elementBytes;
    const perMatrix = ROW / 4;
    const rowStart = (lane: number): number => {
      const [, , src, index] = lanes[lane]!.operands as [Registers, number, Registers, number];
      if (index % ROW !== 0) this.misuse(warp, site, `lane ${lane} gives row address ${index}, not 16-byte aligned (a multiple of ${ROW} elements)`);
      if (index < 0 || index + ROW > src.length)
        this.misuse(warp, site, `lane ${lane} gives row address ${index}: its row of ${ROW} elements is outside the shared buffer of ${src.length}`);
      return index;
    };
    const src = lanes[0]!.operands[2] as Registers;
    const rows = Array.from({ length: 8 * s.matrices }, (_, l) => {
      if (lanes[l]!.operands[2] !== src) this.misuse(warp, site, `lane ${l} addresses another buffer than lane 0`);
      return rowStart(l);
    });
    if (this.banks !== undefined && s.bankSite !== undefined) {
      // One warp access of 16 bytes per addressing lane: each 8-lane phase is one matrix's rows.
      const addresses = Array.from({ length: WARP_SIZE }, (_, l) => (l < rows.length ? rows[l]! * s.elementBytes : INACTIVE));
      this.banks.recordWarpAccess(s.bankSite, addresses, ROW_BYTES, "load");
    }
    lanes.forEach((arrival, lane) => {
      const [dst, offset] = arrival.operands as [Registers, number];
      const count = perMatrix * s.matrices;
      if (offset < 0 || offset + count > dst.length)
        this.misuse(warp, site, `lane ${lane}'s ${count} destination registers from ${offset} are outside its ${dst.length}`);
      if (perMatrix === 1) {
        // 32-bit elements: register m of lane l is row l / 4, element l % 4 of matrix m (the b16 pair 2(l % 4), 2(l % 4) + 1).
        for (let m = 0; m < s.matrices; m++) dst[offset + m] = src[rows[8 * m + (lane >> 2)]! + (lane & 3)]!;
        return;
      }
      for (let e = 0; e < count; e++) {
        const { matrix, row, col } = ldmatrixSource(lane, e, s.trans);
        dst[offset + e] = src[rows[8 * matrix + row]! + col]!;
      }
    });
  }

  private mma(warp: number, site: number, s: MmaSyncSite, lanes: readonly Arrival[]): void {
    const { shape } = s;
    const fragments = new MmaFragments(shape, lanes, s.tf32, (detail) => this.misuse(warp, site, detail));
    const [a, b, c] = [fragments.a(0, "A"), fragments.b(1, "B"), fragments.c(2, "C")];
    const round = roundingFor(s.accumulator);
    for (let r = 0; r < shape.m; r++) {
      for (let col = 0; col < shape.n; col++) {
        let acc = c[r * shape.n + col]!;
        for (let k = 0; k < shape.k; k++) acc = round(acc + round(a[r * shape.k + k]! * b[k * shape.n + col]!));
        c[r * shape.n + col] = acc;
      }
    }
    fragments.scatter(2, c);
  }

  private mmaTf32x3(warp: number, site: number, lanes: readonly Arrival[]): void {
    const shape = M16N8K8_TF32;
    const fragments = new MmaFragments(shape, lanes, true, (detail) => this.misuse(warp, site, detail));
    const [aHi, aLo, bHi, bLo] = [fragments.a(0, "A_hi"), fragments.a(1, "A_lo"), fragments.b(2, "B_hi"), fragments.b(3, "B_lo")];
    const c = fragments.c(4, "C");
    const f = Math.fround;
    for (let r = 0; r < shape.m; r++) {
      for (let col = 0; col < shape.n; col++) {
        const at = r * shape.n + col;
        let acc = c[at]!;
        for (let k = 0; k < shape.k; k++) {
          const [ai, bi] = [r * shape.k + k, k * shape.n + col];
          acc = f(acc + f(f(f(aLo[ai]! * bHi[bi]!) + f(aHi[ai]! * bLo[bi]!)) + f(aHi[ai]! * bHi[bi]!)));
        }
        c[at] = acc;
      }
    }
    fragments.scatter(4, c);
  }

  private linear(tx: number, ty: number, tz: number): number {
    return tx + this.blockDim[0] * (ty + this.blockDim[1] * tz);
  }

  private siteText(site: number): string {
    return this.sites[site]?.text ?? "no call";
  }

  private where(warp: number): string {
    return `kernel ${this.kernel}, block ${formatDim3(this.block)}, warp ${warp}`;
  }

  private misuse(warp: number, site: number, detail: string): never {
    throw new FragmentMisuseError(`${this.where(warp)}: ${this.siteText(site)}: ${detail}`);
  }
}

/** The A, B and C fragments of an MMA gathered from the lanes' registers (operand i: the lanes' arguments 2i, 2i + 1) into matrices, and C scattered back. */
class MmaFragments {
  constructor(
    private readonly shape: MmaShape,
    private readonly lanes: readonly Arrival[],
    private readonly tf32: boolean,
    private readonly misuse: (detail: string) => never,
  ) {}

  a(operand: number, name: string): Float64Array {
    return this.gather(operand, name, this.shape.aElements, this.shape.k, (lane, i) => this.shape.a(lane, i), this.shape.m * this.shape.k);
  }

  b(operand: number, name: string): Float64Array {
    return this.gather(operand, name, this.shape.bElements, this.shape.n, (lane, i) => this.shape.b(lane, i), this.shape.k * this.shape.n);
  }

  c(operand: number, name: string): Float64Array {
    return this.gather(operand, name, this.shape.cElements, this.shape.n, (lane, i) => this.shape.c(lane, i), this.shape.m * this.shape.n, false);
  }

  scatter(operand: number, c: Float64Array): void {
    for (let lane = 0; lane < WARP_SIZE; lane++) {
      const [regs, offset] = this.registers(lane, operand, "C", this.shape.cElements);
      for (let i = 0; i < this.shape.cElements; i++) {
        const { row, col } = this.shape.c(lane, i);
        regs[offset + i] = c[row * this.shape.n + col]!;
      }
    }
  }

  private registers(lane: number, operand: number, name: string, elements: number): [Registers, number] {
    const [regs, offset] = this.lanes[lane]!.operands.slice(2 * operand, 2 * operand + 2) as [Registers, number];
    if (offset < 0 || offset + elements > regs.length)
      this.misuse(`lane ${lane}'s ${name} registers ${offset}..${offset + elements - 1} are outside its ${regs.length}`);
    return [regs, offset];
  }

  private gather(
    operand: number,
    name: string,
    elements: number,
    cols: number,
    at: (lane: number, i: number) => { row: number; col: number },
    size: number,
    input = true,
  ): Float64Array {
    const m = new Float64Array(size);
    for (let lane = 0; lane < WARP_SIZE; lane++) {
      const [regs, offset] = this.registers(lane, operand, name, elements);
      for (let i = 0; i < elements; i++) {
        const x = regs[offset + i]!;
        if (input && this.tf32 && roundToTF32(x) !== x && !Number.isNaN(x))
          this.misuse(`lane ${lane}'s ${name} register holds ${x}, not a tf32 value (round the fragment with T.tf32_round when loading it)`);
        const { row, col } = at(lane, i);
        m[row * cols + col] = x;
      }
    }
    return m;
  }
}
