export { programView, site, type ProgramView, type BlockSite } from "./program-view.js";
export { runStructuralCheck, isStructural, type CheckContext, type CheckOutcome, type StructuralCheck } from "./structural.js";
