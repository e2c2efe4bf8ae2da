/**
 * TVM's RewriteTensorize: every block annotated `meta_schedule.auto_tensorize` (by
 * MultiLevelTilingTensorCore) is tensorized with the intrinsic the annotation names. Unlike TVM,
 * which logs a failed tensorize and goes on, a block that does not match its intrinsic rejects
 * the candidate, naming the block and the intrinsic. An annotation may also name several
 * intrinsics (beyond TVM: the wgmma space's compute, whose N is a sampled decision): the first whose
 * description matches the block is applied.
 */
import { type AttrValue, type StringImm, TesseraError } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { POSTPROC_OK, type Postproc, type PostprocResult, rejected } from "../interfaces/postproc.js";
import { AUTO_TENSORIZE } from "../schedule-utils/annotations.js";
import { annotatedBlocks } from "./annotated.js";

export class RewriteTensorize implements Postproc {
  readonly name = "rewriteTensorize";

  apply(sch: Schedule): PostprocResult {
    const jobs = annotatedBlocks(sch, AUTO_TENSORIZE).map(({ node }) => ({ name: node.name, intrins: intrinNames(node.annotations[AUTO_TENSORIZE]) }));
    for (const { name, intrins } of jobs) {
      const block = sch.getBlock(name);
      sch.unannotate(block, AUTO_TENSORIZE);
      if (intrins === undefined) return rejected("auto_tensorize annotation is not an intrinsic name", `block ${name}`);
      const failures: string[] = [];
      for (const intrin of intrins) {
        try {
          sch.tensorize(block, intrin);
          break;
        } catch (err) {
          if (!(err instanceof TesseraError)) throw err;
          failures.push(err.message);
        }
      }
      if (failures.length === intrins.length) return rejected(`tensorize with ${intrins.join(" or ")} failed`, `block ${name}: ${failures.join("; ")}`);
    }
    return POSTPROC_OK;
  }
}

/** The intrinsic names an annotation holds: one, or a non-empty list of them. */
function intrinNames(value: AttrValue | undefined): string[] | undefined {
  if (!Array.isArray(value)) {
    const one = intrinName(value);
    return one === undefined ? undefined : [one];
  }
  const names = value.map((v) => intrinName(v as AttrValue));
  return names.length > 0 && names.every((n) => n !== undefined) ? (names as string[]) : undefined;
}

/** The intrinsic name an annotation holds (a string, or a string immediate after a round trip through TVMScript). */
function intrinName(value: AttrValue | undefined): string | undefined {
  if (typeof value === "string") return value;
  const imm = value as Partial<StringImm> | undefined;
  return typeof value === "object" && imm?.kind === "StringImm" && typeof imm.value === "string" ? imm.value : undefined;
}
