/**
 * The token-signing keys in Secrets Manager: AWSCURRENT signs, AWSPREVIOUS still verifies, read once
 * per container and again (at most once a minute) when a token matches neither.
 */
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  REFRESH_INTERVAL_MS,
  SecretsManagerSigningKeys,
} from '../../../lib/adapters/aws/signing-keys.js';

const secrets = mockClient(SecretsManagerClient);
afterEach(() => secrets.reset());
const SECRET = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:swf-signing-key-AbCdEf';
const notFound = () =>
  new ResourceNotFoundException({
    message: "Secrets Manager can't find the version",
    $metadata: {},
  });

function stages(current: string, previous?: string) {
  secrets.reset();
  secrets
    .on(GetSecretValueCommand, { VersionStage: 'AWSCURRENT' })
    .resolves({ SecretString: current });
  if (previous === undefined)
    secrets.on(GetSecretValueCommand, { VersionStage: 'AWSPREVIOUS' }).rejects(notFound());
  else
    secrets
      .on(GetSecretValueCommand, { VersionStage: 'AWSPREVIOUS' })
      .resolves({ SecretString: previous });
}

describe('SecretsManagerSigningKeys', () => {
  it('signs with AWSCURRENT, verifies with AWSPREVIOUS, and reads once per container', async () => {
    stages('new-key', 'old-key');
    const keys = new SecretsManagerSigningKeys(SECRET, new SecretsManagerClient({}));
    expect(await keys.signingKeys()).toEqual({
      current: Buffer.from('new-key'),
      previous: Buffer.from('old-key'),
    });
    await keys.signingKeys();
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
    expect(secrets.commandCalls(GetSecretValueCommand)[0]?.args[0].input.SecretId).toBe(SECRET);
  });

  it('has no previous key before the first rotation', async () => {
    stages('only-key');
    const keys = new SecretsManagerSigningKeys(SECRET, new SecretsManagerClient({}));
    expect(await keys.signingKeys()).toEqual({ current: Buffer.from('only-key') });
  });

  it('reads again on refresh, at most once a minute', async () => {
    stages('k1');
    let now = 0;
    const keys = new SecretsManagerSigningKeys(SECRET, new SecretsManagerClient({}), () => now);
    await keys.signingKeys();
    stages('k2', 'k1');
    expect((await keys.refresh()).current).toEqual(Buffer.from('k1')); // read just now
    now = REFRESH_INTERVAL_MS;
    expect(await keys.refresh()).toEqual({
      current: Buffer.from('k2'),
      previous: Buffer.from('k1'),
    });
    expect((await keys.signingKeys()).current).toEqual(Buffer.from('k2'));
  });

  it('does not keep a failed read', async () => {
    secrets.on(GetSecretValueCommand).rejects(new Error('AccessDenied'));
    const keys = new SecretsManagerSigningKeys(SECRET, new SecretsManagerClient({}));
    await expect(keys.signingKeys()).rejects.toThrow('AccessDenied');
    stages('k');
    expect((await keys.signingKeys()).current).toEqual(Buffer.from('k'));
  });
});
