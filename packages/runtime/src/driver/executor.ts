/** What a built module runs on: checks the arguments, runs the kernels in order, and times them. */
import type { BatchTimer } from "../timer.js";

export interface Executor {
  readonly device: "cuda" | "sim";
  /** Runs every kernel once, in launch order (on the cuda device, asynchronously on the stream). */
  run(args: readonly unknown[]): void;
  /** A timer that runs the whole module `number` times per sample. */
  timer(args: readonly unknown[]): BatchTimer;
  dispose(): void;
}
