/**
 * Output digests (runner/output-digest.ts) as job-result JSON, exactly: the sampled values as the
 * base64 of their float64 bytes (JSON has no NaN or infinities, and a checker must see a NaN that
 * a wrong kernel wrote), the indices as the base64 of their int32 bytes.
 */
import { z } from "zod";
import type { OutputDigest } from "../runner/output-digest.js";

/** A float64 that JSON can carry: a finite number, or the name of a non-finite one. */
const JsonFloatSchema = z.union([z.number(), z.enum(["NaN", "Infinity", "-Infinity"])]);
type JsonFloat = z.infer<typeof JsonFloatSchema>;

const jsonFloat = (x: number): JsonFloat => (Number.isFinite(x) ? x : Number.isNaN(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity");
const fromJsonFloat = (x: JsonFloat): number => (typeof x === "number" ? x : Number(x));

export const EncodedDigestSchema = z.object({
  length: z.number().int().nonnegative(),
  indicesBase64: z.string().optional(),
  valuesBase64: z.string(),
  sum: JsonFloatSchema.optional(),
  absSum: JsonFloatSchema.optional(),
});

export type EncodedDigest = z.infer<typeof EncodedDigestSchema>;

function base64Of(array: Float64Array | Int32Array): string {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString("base64");
}

function bytesOf(base64: string, width: number, what: string): ArrayBuffer {
  const bytes = Buffer.from(base64, "base64");
  if (bytes.length % width !== 0) throw new Error(`an output digest's ${what} are ${bytes.length} bytes, not a whole number of ${width}-byte values`);
  const copy = new ArrayBuffer(bytes.length);
  new Uint8Array(copy).set(bytes);
  return copy;
}

export function encodeDigest(digest: OutputDigest): EncodedDigest {
  const values = Float64Array.from(digest.values as ArrayLike<number | bigint>, (v) => Number(v));
  return {
    length: digest.length,
    ...(digest.indices === undefined ? {} : { indicesBase64: base64Of(digest.indices) }),
    valuesBase64: base64Of(values),
    ...(digest.sum === undefined ? {} : { sum: jsonFloat(digest.sum) }),
    ...(digest.absSum === undefined ? {} : { absSum: jsonFloat(digest.absSum) }),
  };
}

/** The digest again; throws, naming what is wrong, on values and indices that do not match. */
export function decodeDigest(encoded: EncodedDigest): OutputDigest {
  const values = new Float64Array(bytesOf(encoded.valuesBase64, 8, "values"));
  const indices = encoded.indicesBase64 === undefined ? undefined : new Int32Array(bytesOf(encoded.indicesBase64, 4, "indices"));
  if (indices !== undefined && indices.length !== values.length) throw new Error(`an output digest has ${values.length} values for ${indices.length} indices`);
  if (indices === undefined && values.length !== encoded.length)
    throw new Error(`an output digest of every element has ${values.length} values for ${encoded.length} elements`);
  return {
    length: encoded.length,
    indices,
    values,
    ...(encoded.sum === undefined ? {} : { sum: fromJsonFloat(encoded.sum) }),
    ...(encoded.absSum === undefined ? {} : { absSum: fromJsonFloat(encoded.absSum) }),
  };
}
