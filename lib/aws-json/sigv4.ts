import { createHash, createHmac } from 'node:crypto';

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

/**
 * Signature Version 4 of a POST to `/` with a JSON body, as the awsJson1_0 and awsJson1_1 protocols
 * send every call (AWS General Reference, "Signing AWS API requests"). The day's signing key is
 * derived once per day and secret.
 */
export class SigV4Signer {
  #key: { readonly day: string; readonly secret: string; readonly key: Buffer } | undefined;

  constructor(
    readonly region: string,
    /** The signing name: `dynamodb`, `swf`, `execute-api`, `lambda`, ... */
    readonly service: string,
  ) {}

  /** Every header of the request, `authorization` and `content-length` included. */
  sign(
    request: {
      readonly host: string;
      /** The URL's path (`/` for most endpoints; an API's stage, say, behind a gateway). */
      readonly path?: string;
      readonly target: string;
      readonly contentType: string;
    },
    body: string,
    credentials: Credentials,
    now: Date = new Date(),
  ): Record<string, string> {
    const amzDate = now.toISOString().replace(/[-:]|\.\d{3}/g, '');
    const day = amzDate.slice(0, 8);
    const headers: Record<string, string> = {
      'content-type': request.contentType,
      host: request.host,
      'x-amz-date': amzDate,
      ...(credentials.sessionToken === undefined
        ? {}
        : { 'x-amz-security-token': credentials.sessionToken }),
      'x-amz-target': request.target,
    };
    const names = Object.keys(headers); // already in lower case and sorted
    const signedHeaders = names.join(';');
    const canonicalRequest = [
      'POST',
      canonicalPath(request.path ?? '/'),
      '',
      ...names.map((name) => `${name}:${headers[name]}`),
      '',
      signedHeaders,
      sha256(body),
    ].join('\n');
    const scope = `${day}/${this.region}/${this.service}/aws4_request`;
    const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256(canonicalRequest)}`;
    const signature = createHmac('sha256', this.#keyFor(day, credentials.secretAccessKey))
      .update(stringToSign)
      .digest('hex');
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
    headers['content-length'] = String(Buffer.byteLength(body));
    return headers;
  }

  #keyFor(day: string, secret: string): Buffer {
    const cached = this.#key;
    if (cached !== undefined && cached.day === day && cached.secret === secret) return cached.key;
    let key: Buffer = createHmac('sha256', `AWS4${secret}`).update(day).digest();
    for (const part of [this.region, this.service, 'aws4_request'])
      key = createHmac('sha256', key).update(part).digest();
    this.#key = { day, secret, key };
    return key;
  }
}

/** Each segment of the path URI-encoded twice, as SigV4 wants for every service but S3. */
function canonicalPath(path: string): string {
  if (path === '/' || path === '') return '/';
  const encode = (segment: string) =>
    encodeURIComponent(segment).replace(
      /[!'()*]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    );
  return path
    .split('/')
    .map((segment) => encode(encode(decodeURIComponent(segment))))
    .join('/');
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
