/** What the grader and its rounds worker (rounds-worker.ts) exchange. */
import type { Dim3 } from "@tessera/simulator";
import type { SampledRequest, SampledRound } from "../sampled-numerics.js";

export type RoundsRequest =
  /** Answered at once: warms the worker up (its code loads) before the first check needs it. */
  | { readonly kind: "ping" }
  | {
      readonly kind: "rounds";
      /** The assignment whose inputs and reference the rounds use (by name: functions do not cross). */
      readonly assignment: string;
      /** The scheduled function as TVMScript: the worker lowers it for the simulated GPU itself. */
      readonly script: string;
      readonly n: number;
      readonly settings: SampledRequest["settings"];
      readonly seed: number;
      /** Every round's blocks (round indices, and so seeds, must match the grader's plan). */
      readonly rounds: readonly (readonly Dim3[])[];
      /** The rounds this worker runs. */
      readonly run: readonly number[];
      /** The kernel the grader lowered (kernelFingerprint): the worker refuses to run another. */
      readonly fingerprint: string;
    };

export type RoundsReply = { readonly kind: "pong" } | { readonly kind: "rounds"; readonly results: readonly SampledRound[] };
