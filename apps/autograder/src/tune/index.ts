/** The tuner behind `pnpm grade --tune`. */
export { tuneSearchSpace, type TuneOptions, type TuneResult, type TunedTrace } from "./tune.js";
export { TuneError } from "./errors.js";
export { MAX_TRIALS, SEARCH_SPACE_FILE, SEARCH_SPACE_FUNCTION } from "./search-space.js";
export { type Candidate, formatDecisions } from "./candidates.js";
export { type Assessment, type CandidateStatus, type Selection, FINALISTS, QUICK_TIMING, selectCandidate } from "./select.js";
export { formatHandIn, formatTuneReport, formatWritten } from "./format.js";
