/** What a structural check says, and what it looks at. */
import type { ProgramView } from "./program-view.js";

export interface CheckOutcome {
  readonly passed: boolean;
  /** Why it failed (empty when it passed). */
  readonly feedback: string;
}

export interface CheckContext {
  /** The schedule right after the task (the trusted replay). */
  readonly view: ProgramView;
  /** The schedule the task started from, when the check judges what the task itself added. */
  readonly before?: ProgramView | undefined;
  readonly tiles: Readonly<Record<string, number>>;
  /** The task's function, in the student's terms ("sharedMemoryTiling"). */
  readonly functionName?: string | undefined;
  /** Names of the blocks the function returned (from the sandbox; only names, judged against `view`). */
  readonly returnedBlocks?: readonly string[] | undefined;
}

export const pass: CheckOutcome = { passed: true, feedback: "" };
export const fail = (feedback: string): CheckOutcome => ({ passed: false, feedback });
