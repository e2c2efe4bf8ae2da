/** Options shared by structural equality, hashing and diff. */
export interface StructuralOptions {
  /**
   * Also compare the names of variables, buffers and blocks (off by default, as in TVM, where
   * renaming never changes structure). Useful for golden tests of generated names like `A_shared`.
   */
  readonly compareNames?: boolean;
}

export interface ResolvedStructuralOptions {
  readonly compareNames: boolean;
}

export function resolveOptions(opts: StructuralOptions | undefined): ResolvedStructuralOptions {
  return { compareNames: opts?.compareNames === true };
}
