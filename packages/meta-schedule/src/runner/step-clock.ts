/** Milliseconds spent in consecutive named steps (a runner's load, upload, check, timing). */
export class StepClock {
  readonly laps: Record<string, number> = {};
  #last = performance.now();

  /** Ends the step `name` (the time since the previous lap); a name given twice adds up. */
  lap(name: string): void {
    const now = performance.now();
    this.laps[name] = (this.laps[name] ?? 0) + (now - this.#last);
    this.#last = now;
  }
}
