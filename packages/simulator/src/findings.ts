/** Collects what the race shadows find into race and uninitialised-read reports. */
import type { AccessSite } from "./compile-kernel.js";
import { type Dim3, formatDim3, unflatten } from "./dims.js";
import type { RaceReport, UninitializedRead } from "./reports.js";
import type { MemoryScope, RaceKind, RawConflict, RawUninitializedRead, ShadowSink } from "./race-shadow.js";
import type { ThreadClock } from "./thread-clock.js";

const KIND_TEXT: Readonly<Record<RaceKind, string>> = {
  "write-write": "both write",
  "read-after-write": "reads what the other thread wrote",
  "write-after-read": "overwrites what the other thread read",
};

export class FindingCollector implements ShadowSink {
  readonly races: RaceReport[] = [];
  raceCount = 0;
  readonly raceCounts: Record<MemoryScope, number> = { shared: 0, global: 0 };
  readonly uninitializedReads: UninitializedRead[] = [];
  uninitializedReadCount = 0;

  constructor(
    private readonly kernel: string,
    private readonly blockDim: Dim3,
    private readonly sites: readonly AccessSite[],
    private readonly maxReports: number,
    /** Finds the block and interval of a conflict's first access. */
    private readonly clock: ThreadClock,
  ) {}

  countConflict(scope: MemoryScope): boolean {
    this.raceCount++;
    this.raceCounts[scope]++;
    return this.races.length < this.maxReports;
  }

  /** Describes a conflict `countConflict` counted. */
  conflict(c: RawConflict): void {
    const firstThread = unflatten(c.firstThread, this.blockDim);
    const secondThread = unflatten(c.secondThread, this.blockDim);
    const firstBlock = this.clock.blockOf(c.firstEpoch);
    const sameBlock = firstBlock.every((v, d) => v === c.block[d]);
    const access = this.sites[c.site]?.text ?? c.storage;
    const where = `${c.kind} race on ${c.scope} memory ${c.storage}[${c.index}] in kernel ${this.kernel}`;
    this.races.push({
      kernel: this.kernel,
      kind: c.kind,
      scope: c.scope,
      buffer: c.storage,
      index: c.index,
      block: c.block,
      firstBlock,
      firstThread,
      secondThread,
      access,
      interval: c.interval,
      message: sameBlock
        ? `${where}, block ${formatDim3(c.block)}: thread ${formatDim3(secondThread)} (${access}) ${KIND_TEXT[c.kind]} ` +
          `${formatDim3(firstThread)} with no barrier between them (barrier interval ${c.interval})`
        : `${where}: block ${formatDim3(c.block)}, thread ${formatDim3(secondThread)} (${access}) ${KIND_TEXT[c.kind]} ` +
          `block ${formatDim3(firstBlock)}, thread ${formatDim3(firstThread)} (barrier interval ${this.clock.intervalOf(c.firstEpoch)}); ` +
          `the blocks of a launch run in no set order`,
    });
  }

  uninitialized(r: RawUninitializedRead): void {
    this.uninitializedReadCount++;
    if (this.uninitializedReads.length >= this.maxReports) return;
    const thread = unflatten(r.thread, this.blockDim);
    const access = this.sites[r.site]?.text ?? r.storage;
    this.uninitializedReads.push({
      kernel: this.kernel,
      buffer: r.storage,
      index: r.index,
      block: r.block,
      thread,
      access,
      message:
        `read of never-written shared memory ${r.storage}[${r.index}] in kernel ${this.kernel}, block ${formatDim3(r.block)}, ` +
        `thread ${formatDim3(thread)} (${access})`,
    });
  }
}
