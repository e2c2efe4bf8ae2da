/**
 * A GPU shared by submissions graded at once: its numerics runs and timings go one at a time, in
 * the order asked for, so concurrent grading never overlaps two kernels on the device (timings
 * would disturb each other, and device memory would be shared). Everything else of a submission
 * (its sandboxed runs, replays and checks) still overlaps.
 */
import type { GpuBackend } from "../grade/numerics-types.js";

/** Runs `work` when it is its turn (after the work asked for before it has settled). */
export type GpuTurns = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * `turns`: how runs take turns; default within this process. Worker processes of the job queue
 * that share one GPU pass a lock they all take (a RedisMutex, see cli/worker-command.ts).
 */
export function serializedGpu(gpu: GpuBackend, turns: GpuTurns = inProcessTurns()): GpuBackend {
  const inTurn = turns;
  return {
    name: gpu.name,
    key: gpu.key,
    numerics: (req) => inTurn(() => gpu.numerics(req)),
    time: (schedule, timing, assignment) => inTurn(() => gpu.time(schedule, timing, assignment)),
    dispose: () => gpu.dispose(),
  };
}

function inProcessTurns(): GpuTurns {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const turn = tail.then(work, work);
    // The next caller waits for this one to settle, whether it succeeded or not.
    tail = turn.catch(() => undefined);
    return turn;
  };
}
