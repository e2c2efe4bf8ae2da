/** Something holding GPU memory or a loaded module. */
interface Releasable {
  dispose(): void;
}

/**
 * Disposes each of `held` (undefined ones skipped), ignoring errors: after a CUDA error (say, an
 * out-of-bounds access) the context is unusable and freeing fails too, while the outcome already
 * says what went wrong; one failed free must not keep the others from being tried.
 */
export function releaseAll(...held: readonly (Releasable | undefined)[]): void {
  for (const h of held) {
    try {
      h?.dispose();
    } catch {
      // see above
    }
  }
}
