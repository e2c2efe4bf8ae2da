/**
 * How deep a trace document may nest. Real traces, ours and TVM's, are a few levels deep (an
 * instruction's lists of lists, TransformLayout's index map); a hostile one nested thousands of
 * levels deep would overflow the stack of every recursive reader after JSON.parse (the quick check,
 * zod, replay) with a bare RangeError instead of naming where the document is wrong.
 */
export const MAX_TRACE_NESTING = 64;

/**
 * The path (`instructions[0].attrs[1][0]…`) of the first array or object nested deeper than `limit`
 * levels in `doc`, or undefined. Walks with an explicit stack, so any depth is safe to check.
 */
export function tooDeeplyNested(doc: unknown, limit = MAX_TRACE_NESTING): string | undefined {
  const values: unknown[] = [doc];
  const depths: number[] = [0];
  const paths: string[] = [""];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    const path = paths.pop()!;
    if (typeof value !== "object" || value === null) continue;
    if (depth > limit) return path;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        values.push(value[i]);
        depths.push(depth + 1);
        paths.push(`${path}[${i}]`);
      }
    } else {
      for (const key of Object.keys(value)) {
        values.push((value as Record<string, unknown>)[key]);
        depths.push(depth + 1);
        paths.push(path === "" ? key : `${path}.${key}`);
      }
    }
  }
  return undefined;
}
