/** Helpers of the CPU tests: the loops of a function, and a run of it on copies of the arguments. */
import { type ForKind, type PrimFunc, type TypedArray, compilePrimFunc, forEachStmt } from "@tessera/ir";

/** Every loop of the function, outermost first: its variable's name and its kind. */
export function loopsOf(func: PrimFunc): { name: string; kind: ForKind }[] {
  const found: { name: string; kind: ForKind }[] = [];
  forEachStmt(func.body, (s) => {
    if (s.kind === "For") found.push({ name: s.loopVar.name, kind: s.forKind });
    return true;
  });
  return found;
}

/** The function run by the JS executor on copies of `args`; the copies after the run. */
export function runOnCopies(func: PrimFunc, args: readonly TypedArray[]): TypedArray[] {
  const copies = args.map((a) => a.slice());
  compilePrimFunc(func).run(copies);
  return copies;
}
