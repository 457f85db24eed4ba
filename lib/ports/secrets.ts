/** The key that signs page tokens and task tokens, shared by every instance of the service. */
export interface SigningKeySource {
  signingKey(): Promise<Buffer>;
}
