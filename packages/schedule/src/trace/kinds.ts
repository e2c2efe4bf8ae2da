/**
 * Kind lookup for traces: the registry (with TVM's GetSBlock-style aliases) plus TVM's
 * `EnterPostproc` marker, which is not a schedule method: everything after it is postprocessing,
 * dropped by `removePostproc`. Replaying it is a no-op that keeps it in the new trace.
 */
import { type InstructionKind, instructionKind } from "../instruction.js";

export const ENTER_POSTPROC: InstructionKind = {
  name: "EnterPostproc",
  method: "enterPostproc",
  pure: false,
  singleOutput: false,
  attrNames: [],
  apply: () => ({ outputs: [] }),
  formatArgs: () => "",
};

export function traceKind(name: string): InstructionKind | undefined {
  return name === ENTER_POSTPROC.name ? ENTER_POSTPROC : instructionKind(name);
}

export function isPostprocMarker(kind: InstructionKind): boolean {
  return kind.name === ENTER_POSTPROC.name;
}

/** The instructions to use: all of them, or those before the first EnterPostproc marker. */
export function validInstructions<T extends { readonly kind: InstructionKind }>(insts: readonly T[], removePostproc: boolean): readonly T[] {
  if (!removePostproc) return insts;
  const cut = insts.findIndex((i) => isPostprocMarker(i.kind));
  return cut < 0 ? insts : insts.slice(0, cut);
}
