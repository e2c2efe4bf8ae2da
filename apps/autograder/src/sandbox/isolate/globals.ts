/** Names on the isolate's global object through which the host and the bundle meet, each for a moment. */

/** The host's output sink, set before the bundle runs; the environment takes it away at once. */
export const CONSOLE_SINK_GLOBAL = "__tesseraConsoleSink";

/** Where the bundle leaves the harness for the host, which takes it away before the student's module loads. */
export const HARNESS_GLOBAL = "__tesseraHarness";

/** The packages and harness (the sandbox runtime), left by the runtime script for the submission's bundle. */
export const RUNTIME_GLOBAL = "__tesseraRuntime";
