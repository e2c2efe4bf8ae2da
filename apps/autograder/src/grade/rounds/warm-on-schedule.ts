/**
 * Starts the rounds worker as soon as a sandboxed run returns a schedule with at least one
 * instruction: only then will a sampled check follow. A starter whose tasks all throw never starts
 * it, and so never shares its two cores with a thread that has nothing to do.
 */
import type { PreparedFile } from "../../sandbox/index.js";
import type { JobResult } from "../../sandbox/protocol.js";
import type { SampledRoundsHelper } from "./rounds-helper.js";

export function warmOnSchedule(file: PreparedFile, helper: Pick<SampledRoundsHelper, "start"> | undefined): PreparedFile {
  if (helper === undefined) return file;
  return {
    file: file.file,
    run: async (jobs, limits, options) => {
      const run = await file.run(jobs, limits, options);
      if ([...run.results.values()].some(givesSchedule)) helper.start();
      return run;
    },
    dispose: () => file.dispose(),
  };
}

/** An ok result whose trace (JSON, not yet validated) holds an instruction. */
export function givesSchedule(result: JobResult): boolean {
  if (!result.ok) return false;
  const trace: unknown = result.trace;
  if (typeof trace !== "object" || trace === null) return false;
  const instructions: unknown = (trace as { instructions?: unknown }).instructions;
  return Array.isArray(instructions) && instructions.length > 0;
}
