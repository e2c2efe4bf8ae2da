/**
 * TVM's `allow_uint_as_index` scope: inside it the caller asserts that unsigned index arithmetic
 * never wraps, and the TVM-side simplifiers (`rewriteSimplify`, `canonicalSimplify`,
 * `tvmSimplify`, `tvmCanProve`) treat uint32 and uint64 scalars as index types, whose rules assume
 * no overflow. Off by default; scopes nest. Lowering's `simplify` and `canProve` never look at it.
 */
let depth = 0;

/** Enters the scope; the returned function leaves it (once). */
export function allowUintAsIndex(): () => void {
  depth++;
  let open = true;
  return () => {
    if (!open) return;
    open = false;
    depth--;
  };
}

export function uintAsIndexAllowed(): boolean {
  return depth > 0;
}
