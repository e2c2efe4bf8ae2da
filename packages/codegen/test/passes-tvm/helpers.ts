/** Shared helpers of the TVM-conformance pass tests: parsing, structural checks and execution. */
import { type PrimFunc, parsePrimFunc, structuralDiff } from "@tessera/ir";
import { expect } from "vitest";

export { expectSameResults, script } from "../passes-front/helpers.js";

/** Parses one function written in our TVMScript dialect. */
export const parse = (text: string): PrimFunc => parsePrimFunc(text);

/** `got` equals `want` structurally (attributes aside), with the first difference as the message. */
export function expectStructurallyEqual(got: PrimFunc, want: PrimFunc): void {
  const diff = structuralDiff({ ...got, attrs: {} }, { ...want, attrs: {} });
  expect(diff?.message).toBeUndefined();
}

/** TVMScript of a function `main(params)` whose body is `body` (written at column 0). */
export function funcText(body: string, params: string): string {
  const indented = body
    .trim()
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
  return `@T.prim_func\ndef main(${params}):\n${indented}\n`;
}
