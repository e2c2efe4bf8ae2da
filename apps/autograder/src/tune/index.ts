/** The tuner behind `pnpm grade --tune`: a thin client of @tessera/meta-schedule. */
export { handInTuned, searchTuneSpace, tuneSearchSpace, type TuneOptions, type TuneResult, type TuneSearch, type TunedTrace } from "./tune.js";
export { TuneError } from "./errors.js";
export { MAX_TRIALS, SEARCH_SPACE_FILE, SEARCH_SPACE_FUNCTION } from "./search-space.js";
export { formatDecisions } from "./design-spaces.js";
export { type CheckedRecord, MAX_NUMERICS_CHECKS } from "./choose.js";
export { formatHandIn, formatTuneReport, formatWritten } from "./format.js";
