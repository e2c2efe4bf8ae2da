/** What the trace helpers read: instructions in order and the decisions of sampling instructions. */
import type { Decision, Instruction } from "../instruction.js";

export interface TraceLike {
  readonly instructions: readonly Instruction[];
  readonly decisions: ReadonlyMap<Instruction, Decision>;
}
