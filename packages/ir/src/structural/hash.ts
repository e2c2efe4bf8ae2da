/** Structural hash: a 64-bit hash (16 hex digits) of the canonical token stream. */
import { BLOCK_NAME_LABEL, CanonicalWriter, type TokenSink, freshBufferToken, freshVarToken } from "./canonical-writer.js";
import type { StructuralNode } from "./node-kinds.js";
import { type StructuralOptions, resolveOptions } from "./options.js";

/** Two independent 32-bit multiplicative lanes over the characters of every token. */
class StreamHasher implements TokenSink {
  private h1 = 0xdeadbeef;
  private h2 = 0x41c6ce57;

  token(key: string): void {
    this.update(key);
    this.update("\u0000");
  }

  private update(text: string): void {
    let h1 = this.h1;
    let h2 = this.h2;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    this.h1 = h1;
    this.h2 = h2;
  }

  digest(): string {
    let h1 = Math.imul(this.h1 ^ (this.h1 >>> 16), 2246822507);
    h1 ^= Math.imul(this.h2 ^ (this.h2 >>> 13), 3266489909);
    let h2 = Math.imul(this.h2 ^ (this.h2 >>> 16), 2246822507);
    h2 ^= Math.imul(this.h1 ^ (this.h1 >>> 13), 3266489909);
    const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, "0");
    return hex(h2) + hex(h1);
  }
}

/**
 * A hash consistent with `structuralEqual` under the same options: equal nodes hash the same,
 * whatever their variable, buffer and block names (unless `compareNames`).
 */
export function structuralHash(node: StructuralNode, opts?: StructuralOptions): string {
  const hasher = new StreamHasher();
  new CanonicalWriter(hasher, resolveOptions(opts)).writeRoot(node, "structuralHash");
  return hasher.digest();
}

/** A node's two structural hashes: as `structuralHash` gives them without and with `compareNames`. */
export interface StructuralHashes {
  readonly withoutNames: string;
  readonly withNames: string;
}

/**
 * Both structural hashes of `node` from one canonical walk (the walk, not the hashing, is the
 * cost): the stream with names differs from the stream without only in the tokens that define a
 * variable or buffer (which carry the name) and in the block-name tokens, so the walk writes the
 * stream with names and gives the other digest each token without its name.
 */
export function structuralHashes(node: StructuralNode): StructuralHashes {
  const named = new StreamHasher();
  const nameless = new StreamHasher();
  const sink: TokenSink = {
    token(key, _path, subject) {
      named.token(key);
      if (subject.kind === "var" && subject.fresh) nameless.token(freshVarToken(subject.v.dtype, undefined));
      else if (subject.kind === "buffer" && subject.fresh) nameless.token(freshBufferToken(undefined));
      else if (!(subject.kind === "value" && subject.label === BLOCK_NAME_LABEL)) nameless.token(key);
    },
  };
  new CanonicalWriter(sink, resolveOptions({ compareNames: true })).writeRoot(node, "structuralHashes");
  return { withoutNames: nameless.digest(), withNames: named.digest() };
}

/**
 * The canonical token stream that `structuralEqual` compares and `structuralHash` hashes, one
 * token at a time, for a digest of the caller's choosing: a cryptographic one where an adversary
 * could aim for a collision (a cache of verdicts keyed by a student's scheduled function). Float
 * constants also give their exact value, so that `-0.0` and `0.0`, equal as structure, differ here.
 */
export function writeStructuralTokens(node: StructuralNode, onToken: (token: string) => void, opts?: StructuralOptions): void {
  const sink: TokenSink = {
    token(key, _path, subject) {
      onToken(key);
      if (subject.kind === "expr" && subject.expr.kind === "FloatImm" && Object.is(subject.expr.value, -0)) onToken("-0");
    },
  };
  new CanonicalWriter(sink, resolveOptions(opts)).writeRoot(node, "writeStructuralTokens");
}
