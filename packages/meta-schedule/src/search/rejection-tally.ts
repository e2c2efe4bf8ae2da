/**
 * Why candidates were dropped: a count per short reason ("postproc verifyGpuCode: too many
 * threads", "duplicate of a measured candidate"), for the tuning log and the summary.
 */
export class RejectionTally {
  private readonly counts = new Map<string, number>();

  add(reason: string, count = 1): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + count);
  }

  addAll(other: RejectionTally): void {
    for (const [reason, n] of other.counts) this.add(reason, n);
  }

  get total(): number {
    let t = 0;
    for (const n of this.counts.values()) t += n;
    return t;
  }

  count(reason: string): number {
    return this.counts.get(reason) ?? 0;
  }

  /** Reasons, most frequent first (ties by reason). */
  entries(): Array<readonly [reason: string, count: number]> {
    return [...this.counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  }

  /** One line: `12× postproc …; 3× duplicate …`, or `none`. */
  summary(): string {
    const e = this.entries();
    return e.length === 0 ? "none" : e.map(([reason, n]) => `${n}× ${reason}`).join("; ");
  }
}
