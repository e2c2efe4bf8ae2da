/**
 * The manifest names GPUs by short keys ("t4") in its score tables; the driver names them in full
 * ("Tesla T4", "NVIDIA T4", "NVIDIA H100 80GB HBM3"). Word boundaries keep look-alikes apart
 * ("NVIDIA GH200" is not an H200, "NVIDIA L4" not a T4).
 */
const KNOWN_GPUS: ReadonlyArray<readonly [pattern: RegExp, key: string]> = [
  [/\bt4\b/, "t4"],
  [/\ba100\b/, "a100"],
  [/\bh100\b/, "h100"],
  [/\bh200\b/, "h200"],
];

/** The manifest's key for the GPU the driver calls `name`, or undefined for any other GPU. */
export function gpuKeyFor(name: string): string | undefined {
  const lower = name.toLowerCase();
  return KNOWN_GPUS.find(([pattern]) => pattern.test(lower))?.[1];
}
