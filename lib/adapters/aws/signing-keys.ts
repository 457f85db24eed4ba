import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { SigningKeySource, SigningKeys } from '../../ports/secrets.js';

/** The least time between two reads of the secret prompted by tokens signed with an unknown key. */
export const REFRESH_INTERVAL_MS = 60_000;

/**
 * The token-signing keys in AWS Secrets Manager: the secret's AWSCURRENT version signs, and its
 * AWSPREVIOUS version (the key before the last rotation) still verifies. Read once per container;
 * read again, at most once a minute, when a token matches neither key (a rotation another container
 * saw first), so a rotation needs no redeploy. Nothing of the key is ever written to the table.
 */
export class SecretsManagerSigningKeys implements SigningKeySource {
  #keys: Promise<SigningKeys> | undefined;
  #lastRead = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly secretId: string,
    private readonly client: SecretsManagerClient = new SecretsManagerClient({}),
    private readonly now: () => number = Date.now,
  ) {}

  signingKeys(): Promise<SigningKeys> {
    this.#keys ??= this.read();
    return this.#keys;
  }

  refresh(): Promise<SigningKeys> {
    if (this.now() - this.#lastRead >= REFRESH_INTERVAL_MS) this.#keys = this.read();
    return this.signingKeys();
  }

  private read(): Promise<SigningKeys> {
    this.#lastRead = this.now();
    const reading = Promise.all([this.stage('AWSCURRENT'), this.stage('AWSPREVIOUS')]).then(
      ([current, previous]) => {
        if (current === undefined)
          throw new Error(`The signing-key secret ${this.secretId} has no AWSCURRENT value`);
        return previous === undefined ? { current } : { current, previous };
      },
    );
    // A failed read is not kept: the next request reads again.
    reading.catch(() => {
      if (this.#keys === reading) this.#keys = undefined;
    });
    return reading;
  }

  private async stage(stage: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<Buffer | undefined> {
    try {
      const { SecretString, SecretBinary } = await this.client.send(
        new GetSecretValueCommand({ SecretId: this.secretId, VersionStage: stage }),
      );
      if (SecretBinary !== undefined) return Buffer.from(SecretBinary);
      if (SecretString === undefined || SecretString === '') return undefined;
      return Buffer.from(SecretString, 'utf8');
    } catch (error) {
      // A secret never rotated has no AWSPREVIOUS version.
      if (stage === 'AWSPREVIOUS' && error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  }
}
