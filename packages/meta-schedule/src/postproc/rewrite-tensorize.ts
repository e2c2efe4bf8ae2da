/**
 * TVM's RewriteTensorize: every block annotated `meta_schedule.auto_tensorize` (by
 * MultiLevelTilingTensorCore) is tensorized with the intrinsic the annotation names. Unlike TVM,
 * which logs a failed tensorize and goes on, a block that does not match its intrinsic rejects
 * the candidate, naming the block and the intrinsic.
 */
import { type AttrValue, type StringImm, TesseraError } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { POSTPROC_OK, type Postproc, type PostprocResult, rejected } from "../interfaces/postproc.js";
import { AUTO_TENSORIZE } from "../schedule-utils/annotations.js";
import { annotatedBlocks } from "./annotated.js";

export class RewriteTensorize implements Postproc {
  readonly name = "rewriteTensorize";

  apply(sch: Schedule): PostprocResult {
    const jobs = annotatedBlocks(sch, AUTO_TENSORIZE).map(({ node }) => ({ name: node.name, intrin: intrinName(node.annotations[AUTO_TENSORIZE]) }));
    for (const { name, intrin } of jobs) {
      const block = sch.getBlock(name);
      sch.unannotate(block, AUTO_TENSORIZE);
      if (intrin === undefined) return rejected("auto_tensorize annotation is not an intrinsic name", `block ${name}`);
      try {
        sch.tensorize(block, intrin);
      } catch (err) {
        if (!(err instanceof TesseraError)) throw err;
        return rejected(`tensorize with ${intrin} failed`, `block ${name}: ${err.message}`);
      }
    }
    return POSTPROC_OK;
  }
}

/** The intrinsic name an annotation holds (a string, or a string immediate after a round trip through TVMScript). */
function intrinName(value: AttrValue | undefined): string | undefined {
  if (typeof value === "string") return value;
  const imm = value as Partial<StringImm> | undefined;
  return typeof value === "object" && imm?.kind === "StringImm" && typeof imm.value === "string" ? imm.value : undefined;
}
