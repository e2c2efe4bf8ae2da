/**
 * A standard normal deviate fixed by a text key (Box–Muller on two FNV-1a hashes of it): the same
 * key always gives the same value, so simulated run times can carry noise and stay deterministic.
 */

/** FNV-1a of `text`, a 32-bit unsigned integer. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function seededNormal(key: string): number {
  const u1 = (hash32(`${key}/1`) + 1) / 4294967297;
  const u2 = hash32(`${key}/2`) / 4294967296;
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}
