/**
 * Loads the student's transpiled module: a function whose only imports are the packages the
 * grader's sandbox allows, and maps stack frames of that function back to editor lines.
 */
import * as ir from "@tessera/ir";
import * as schedule from "@tessera/schedule";

/** The name stack frames give the student's code. */
export const STUDENT_FILE = "your-schedule.ts";
const ALLOWED: Readonly<Record<string, unknown>> = { "@tessera/ir": ir, "@tessera/schedule": schedule };

export class ImportError extends Error {
  override readonly name = "ImportError";
}

function requireAllowed(specifier: string): unknown {
  const module = ALLOWED[specifier];
  if (module === undefined) {
    throw new ImportError(`imports "${specifier}"; a schedule may only import ${Object.keys(ALLOWED).join(" and ")}`);
  }
  return module;
}

function compile(body: string): (require: (s: string) => unknown, exports: Record<string, unknown>) => void {
  return new Function("require", "exports", `${body}\n//# sourceURL=${STUDENT_FILE}`) as (
    require: (s: string) => unknown,
    exports: Record<string, unknown>,
  ) => void;
}

const FRAME = new RegExp(`(?:^|[\\s(@])${STUDENT_FILE.replace(".", "\\.")}:(\\d+):\\d+`, "gm");

/** How many lines the engine's function wrapper adds before the body (2 in V8), measured once. */
let headerLines: number | undefined;
function wrapperHeaderLines(): number {
  if (headerLines === undefined) {
    try {
      compile("throw new Error();")(requireAllowed, {});
    } catch (err) {
      const first = [...String((err as Error).stack).matchAll(FRAME)][0];
      headerLines = first === undefined ? 0 : Number(first[1]) - 1;
    }
  }
  return headerLines ?? 0;
}

/** The editor lines of the student's frames in `stack`, innermost first. */
export function studentLines(stack: string | undefined): number[] {
  if (stack === undefined) return [];
  const offset = wrapperHeaderLines();
  return [...stack.matchAll(FRAME)].map((m) => Number(m[1]) - offset);
}

/** Runs the module's top level and returns its exports. */
export function loadStudentModule(body: string): Record<string, unknown> {
  const exports: Record<string, unknown> = {};
  compile(body)(requireAllowed, exports);
  return exports;
}
