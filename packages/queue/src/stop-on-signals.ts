/**
 * How a worker command ends: the first SIGTERM or SIGINT lets the jobs in hand finish, a second
 * one drops them (they go to another worker once their locks lapse).
 */
import type { RunningWorker } from "./worker.js";

/** Resolves once `worker` has stopped; says each signal's effect through `say`. */
export async function stopOnSignals(worker: RunningWorker, say: (line: string) => void): Promise<void> {
  let signals = 0;
  const stop = (signal: string): void => {
    signals++;
    say(`[${worker.name}] ${signal}: ${signals === 1 ? "finishing the jobs in hand, then exiting (again to exit now)" : "exiting now"}`);
    void worker.close(signals > 1);
  };
  const onTerm = (): void => stop("SIGTERM");
  const onInt = (): void => stop("SIGINT");
  process.on("SIGTERM", onTerm);
  process.on("SIGINT", onInt);
  try {
    await worker.closed;
  } finally {
    process.off("SIGTERM", onTerm);
    process.off("SIGINT", onInt);
  }
}
