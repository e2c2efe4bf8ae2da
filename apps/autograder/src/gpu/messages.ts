/** The message of anything thrown, for an outcome's `error` (never "[object Object]"). */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === "string" ? err : `a non-Error value was thrown: ${String(err)}`;
}
