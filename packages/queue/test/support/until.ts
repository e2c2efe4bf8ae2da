/** Polls `probe` every 50 ms until it gives a value; throws naming `what` after `limitMs`. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, limitMs = 20_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
