/** Types of temp-root.mjs for the TypeScript test that imports it. */
export const TEMP_ROOT_PREFIX: string;

/** vitest's global setup: the run's temporary folder, and what removes it. */
export default function setup(): () => void;

/** Makes the run's temporary folder, points TMPDIR at it; the returned function removes it (or keeps it under TESSERA_TEST_KEEP_TMP=1). */
export function makeTempRoot(log: (line: string) => void): () => void;
