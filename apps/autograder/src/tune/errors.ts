/**
 * Tuning cannot start: the search space did not load, or `autoTuningSchedule` threw or was stopped
 * for every seed. The message is for the student (built with grade/job-failure.ts).
 */
export class TuneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TuneError";
  }
}
