/** The signing names the console proxy signs for: API Gateway, a Lambda function URL, Amazon SWF. */
export const SIGNING_NAMES = ['execute-api', 'lambda', 'swf'] as const;
export type SigningName = (typeof SIGNING_NAMES)[number];

/** How the console proxy signs: the endpoint, SigV4's signing name and region. */
export interface Signing {
  readonly endpoint: URL;
  readonly service: SigningName;
  readonly region: string;
  /** A local endpoint over http: signed with the local keys, as `createSwfClient` does. */
  readonly local: boolean;
}

export class SigningError extends Error {
  override readonly name = 'SigningError';
}

const REGION = '([a-z]{2}(?:-[a-z]+)+-\\d+)';
const AWS_DOMAIN = 'amazonaws\\.com(?:\\.cn)?';
/** Each AWS host form, what it signs as and where its region is. */
const HOSTS: readonly { readonly pattern: RegExp; readonly service: SigningName }[] = [
  { pattern: new RegExp(`^swf(?:-fips)?\\.${REGION}\\.${AWS_DOMAIN}$`), service: 'swf' },
  { pattern: new RegExp(`\\.execute-api\\.${REGION}\\.${AWS_DOMAIN}$`), service: 'execute-api' },
  { pattern: new RegExp(`\\.lambda-url\\.${REGION}\\.on\\.aws$`), service: 'lambda' },
];

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * What to sign a call to `endpoint` with. The signing name and region come from the endpoint's host
 * where it is one of AWS's (Amazon SWF, an API Gateway API, a function URL); `service` and `region`
 * override them. A custom domain is signed as `execute-api` (API Gateway's custom domains), in
 * `region`, else $AWS_REGION or $AWS_DEFAULT_REGION. Without an endpoint, Amazon SWF in `region`.
 */
export function signingFor(
  options: { readonly endpoint?: string; readonly region?: string; readonly service?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
): Signing {
  const service = options.service;
  if (service !== undefined && !(SIGNING_NAMES as readonly string[]).includes(service))
    throw new SigningError(
      `Unknown signing name ${JSON.stringify(service)}: use one of ${SIGNING_NAMES.join(', ')}`,
    );
  const fallbackRegion = options.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (options.endpoint === undefined) {
    if (fallbackRegion === undefined)
      throw new SigningError('Give --endpoint URL, or --region R for Amazon SWF in that region');
    return signingFor({ ...options, endpoint: `https://swf.${fallbackRegion}.amazonaws.com` }, env);
  }
  const endpoint = parseEndpoint(options.endpoint);
  if (endpoint.protocol === 'http:' && LOOPBACK.has(endpoint.hostname))
    return {
      endpoint,
      service: (service as SigningName | undefined) ?? 'swf',
      region: fallbackRegion ?? 'us-east-1',
      local: true,
    };
  const known = HOSTS.map(({ pattern, service }) => ({
    match: pattern.exec(endpoint.hostname),
    service,
  })).find(({ match }) => match !== null);
  const region = options.region ?? known?.match?.[1] ?? fallbackRegion;
  if (region === undefined)
    throw new SigningError(
      `The region of ${endpoint.hostname} cannot be told from its name: give --region (or set AWS_REGION)`,
    );
  return {
    endpoint,
    service: (service as SigningName | undefined) ?? known?.service ?? 'execute-api',
    region,
    local: false,
  };
}

function parseEndpoint(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SigningError(`Not a URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new SigningError(`The endpoint must be an http(s) URL, not ${url.protocol}`);
  if (url.search !== '' || url.hash !== '')
    throw new SigningError('The endpoint takes no query string or fragment');
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname))
    throw new SigningError(
      `Signed calls go over https: ${url.host} is not this machine (http is for a local endpoint)`,
    );
  return url;
}
