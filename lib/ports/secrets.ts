/**
 * The keys that sign page tokens and task tokens, shared by every instance of the service. `current`
 * signs; a token signed with `previous` (the key before the last rotation) is still accepted, so
 * tokens issued before a rotation stay valid until they expire.
 */
export interface SigningKeys {
  readonly current: Buffer;
  readonly previous?: Buffer;
}

export interface SigningKeySource {
  signingKeys(): Promise<SigningKeys>;
  /**
   * Reads the keys again, when a token matches none of those held: another instance may have read a
   * rotated key first. Sources that never change leave it out.
   */
  refresh?(): Promise<SigningKeys>;
}
