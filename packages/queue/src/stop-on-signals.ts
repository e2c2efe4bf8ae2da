/**
 * How a worker command ends: the first SIGTERM or SIGINT lets the jobs in hand finish, a second
 * one drops them (they go to another worker once their locks lapse). A worker started with an IPC
 * channel (by startGpuWorkers, for `tessera tune --gpus`) also finishes when that channel closes:
 * its parent is gone, killed perhaps, and nobody else would stop it.
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
  const onDisconnect = (): void => {
    say(`[${worker.name}] the process that started this worker is gone: finishing the jobs in hand, then exiting`);
    void worker.close();
  };
  process.on("SIGTERM", onTerm);
  process.on("SIGINT", onInt);
  if (process.channel !== undefined) {
    process.once("disconnect", onDisconnect);
    // The channel must not keep this process alive once the worker has stopped.
    process.channel.unref();
  }
  try {
    await worker.closed;
  } finally {
    process.off("SIGTERM", onTerm);
    process.off("SIGINT", onInt);
    process.off("disconnect", onDisconnect);
  }
}
