/**
 * Names that become paths in OUT (a submission's folder): a plain name only, so that nothing a
 * submission or a worker reports can make the batch write outside OUT.
 */

/** Why `name` is not a plain file name (one path component, not "." or ".."), or undefined. */
export function plainNameProblem(name: string): string | undefined {
  if (name === "") return "it is empty";
  if (name === "." || name === "..") return `"${name}" names a folder, not an entry in it`;
  if (/[\\/]/.test(name)) return "it contains a path separator";
  if (name.includes("\0")) return "it contains a NUL character";
  return undefined;
}

/** Throws a RangeError naming `what` when `name` is not a plain name. */
export function assertPlainName(name: string, what: string): void {
  const problem = plainNameProblem(name);
  if (problem !== undefined) throw new RangeError(`${what}: ${JSON.stringify(name)} is not a plain name (${problem}); refused, nothing written`);
}
