import { describe, expect, it } from 'vitest';
import { SigningError, signingFor } from '../../../lib/console/signing.js';

const noEnv = {};

describe('the console proxy signs each endpoint as its service expects', () => {
  it.each([
    ['https://abc123.execute-api.eu-west-1.amazonaws.com', 'execute-api', 'eu-west-1'],
    ['https://abc123.execute-api.cn-north-1.amazonaws.com.cn/', 'execute-api', 'cn-north-1'],
    ['https://u7x3k2lq5yzwvbn4.lambda-url.ap-southeast-2.on.aws/', 'lambda', 'ap-southeast-2'],
    ['https://swf.us-west-2.amazonaws.com', 'swf', 'us-west-2'],
    ['https://swf-fips.us-gov-west-1.amazonaws.com', 'swf', 'us-gov-west-1'],
  ])('%s: %s in %s', (endpoint, service, region) => {
    const signing = signingFor({ endpoint }, noEnv);
    expect(signing).toMatchObject({ service, region, local: false });
    expect(signing.endpoint.href).toBe(new URL(endpoint).href);
  });

  it('--region and --service override what the name says', () => {
    expect(
      signingFor(
        {
          endpoint: 'https://abc.execute-api.eu-west-1.amazonaws.com',
          region: 'eu-central-1',
          service: 'lambda',
        },
        noEnv,
      ),
    ).toMatchObject({ service: 'lambda', region: 'eu-central-1' });
  });

  it('a custom domain signs as execute-api in the given region, else $AWS_REGION, else $AWS_DEFAULT_REGION', () => {
    const endpoint = 'https://swf.example.com';
    expect(signingFor({ endpoint, region: 'sa-east-1' }, noEnv)).toMatchObject({
      service: 'execute-api',
      region: 'sa-east-1',
    });
    expect(
      signingFor({ endpoint }, { AWS_REGION: 'eu-north-1', AWS_DEFAULT_REGION: 'us-east-2' }),
    ).toMatchObject({ region: 'eu-north-1' });
    expect(signingFor({ endpoint }, { AWS_DEFAULT_REGION: 'us-east-2' })).toMatchObject({
      region: 'us-east-2',
    });
    expect(() => signingFor({ endpoint }, noEnv)).toThrow(
      /cannot be told from its name: give --region/,
    );
  });

  it('without an endpoint, Amazon SWF in the region', () => {
    const signing = signingFor({ region: 'eu-west-3' }, noEnv);
    expect(signing).toMatchObject({ service: 'swf', region: 'eu-west-3' });
    expect(signing.endpoint.href).toBe('https://swf.eu-west-3.amazonaws.com/');
    expect(() => signingFor({}, noEnv)).toThrow(/--endpoint URL, or --region/);
  });

  it('a local endpoint over http is signed with the local keys, as swf in us-east-1', () => {
    expect(signingFor({ endpoint: 'http://127.0.0.1:8080' }, noEnv)).toMatchObject({
      service: 'swf',
      region: 'us-east-1',
      local: true,
    });
    expect(signingFor({ endpoint: 'http://localhost:9000' }, noEnv).local).toBe(true);
  });

  it.each([
    ['not a url', /Not a URL/],
    ['ftp://swf.us-east-1.amazonaws.com', /must be an http\(s\) URL/],
    ['http://swf.us-east-1.amazonaws.com', /Signed calls go over https/],
    ['https://swf.us-east-1.amazonaws.com/?x=1', /no query string/],
  ])('refuses %s', (endpoint, message) => {
    expect(() => signingFor({ endpoint }, noEnv)).toThrow(SigningError);
    expect(() => signingFor({ endpoint }, noEnv)).toThrow(message);
  });

  it('refuses a signing name it does not know', () => {
    expect(() =>
      signingFor({ endpoint: 'https://swf.us-east-1.amazonaws.com', service: 's3' }, noEnv),
    ).toThrow(/Unknown signing name "s3": use one of execute-api, lambda, swf/);
  });
});
