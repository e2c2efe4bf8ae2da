/** Collects what the shared-memory shadows find into race and uninitialised-read reports. */
import type { AccessSite } from "./compile-kernel.js";
import { type Dim3, formatDim3, unflatten } from "./dims.js";
import type { RaceReport, UninitializedRead } from "./reports.js";
import type { RaceKind, RawConflict, RawUninitializedRead, ShadowSink } from "./shared-shadow.js";

const KIND_TEXT: Readonly<Record<RaceKind, string>> = {
  "write-write": "both write",
  "read-after-write": "reads what the other thread wrote",
  "write-after-read": "overwrites what the other thread read",
};

export class FindingCollector implements ShadowSink {
  readonly races: RaceReport[] = [];
  raceCount = 0;
  readonly uninitializedReads: UninitializedRead[] = [];
  uninitializedReadCount = 0;

  constructor(
    private readonly kernel: string,
    private readonly blockDim: Dim3,
    private readonly sites: readonly AccessSite[],
    private readonly maxReports: number,
  ) {}

  conflict(c: RawConflict): void {
    this.raceCount++;
    if (this.races.length >= this.maxReports) return;
    const firstThread = unflatten(c.firstThread, this.blockDim);
    const secondThread = unflatten(c.secondThread, this.blockDim);
    const access = this.sites[c.site]?.text ?? c.storage;
    this.races.push({
      kernel: this.kernel,
      kind: c.kind,
      buffer: c.storage,
      index: c.index,
      block: c.block,
      firstThread,
      secondThread,
      access,
      interval: c.interval,
      message:
        `${c.kind} race on ${c.storage}[${c.index}] in kernel ${this.kernel}, block ${formatDim3(c.block)}: ` +
        `thread ${formatDim3(secondThread)} (${access}) ${KIND_TEXT[c.kind]} ${formatDim3(firstThread)} ` +
        `with no barrier between them (barrier interval ${c.interval})`,
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
