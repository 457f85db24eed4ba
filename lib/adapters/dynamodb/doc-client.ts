import { createHash, createHmac, randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type {
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
  TransactWriteCommandInput,
  TransactWriteCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { fromWireItem, toWireItem, type WireItem } from './attribute-values.js';

/**
 * The DynamoDB item operations the adapters use, on native JavaScript values (the shapes of
 * `@aws-sdk/lib-dynamodb`'s document client, without its `$metadata`).
 */
export interface DocClient {
  get(input: GetCommandInput): Promise<Output<GetCommandOutput>>;
  put(input: PutCommandInput): Promise<Output<PutCommandOutput>>;
  update(input: UpdateCommandInput): Promise<Output<UpdateCommandOutput>>;
  delete(input: DeleteCommandInput): Promise<Output<DeleteCommandOutput>>;
  query(input: QueryCommandInput): Promise<Output<QueryCommandOutput>>;
  scan(input: ScanCommandInput): Promise<Output<ScanCommandOutput>>;
  transactWrite(input: TransactWriteCommandInput): Promise<Output<TransactWriteCommandOutput>>;
  batchWrite(input: BatchWriteCommandInput): Promise<Output<BatchWriteCommandOutput>>;
}

type Output<T> = Omit<T, '$metadata'>;
type Json = Record<string, unknown>;

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/**
 * Sees every request in the DynamoDB JSON it is sent as (and may add to it), and its parsed answer:
 * the bench's meter. `send` throws what the request throws.
 */
export type DynamoIntercept = (
  operation: string,
  input: Json,
  send: () => Promise<Json>,
) => Promise<Json>;

export interface DocClientOptions {
  /** The region requests are signed for; AWS_REGION by default. */
  readonly region?: string;
  /** `https://dynamodb.<region>.amazonaws.com` by default; DynamoDB Local's URL locally. */
  readonly endpoint?: string;
  /** Fixed credentials, or where to get them (the SDK's default chain when left out). */
  readonly credentials?: Credentials | (() => Promise<Credentials>);
  /** Attempts per request for throttling, 5xx answers and broken connections (3, as the SDK's). */
  readonly maxAttempts?: number;
  readonly intercept?: DynamoIntercept;
}

/** An error DynamoDB answered with: `name` is its type (ConditionalCheckFailedException, ...). */
export class DynamoDbError extends Error {
  /** TransactionCanceledException: one reason per item, Code 'None' for those that were fine. */
  readonly CancellationReasons?: { Code?: string; Message?: string; Item?: Json }[];
  /** ConditionalCheckFailedException with ReturnValuesOnConditionCheckFailure: the item as it was. */
  readonly Item?: Json;

  constructor(
    override readonly name: string,
    message: string,
    readonly statusCode: number,
    body: Json,
  ) {
    super(message);
    if (Array.isArray(body.CancellationReasons))
      this.CancellationReasons = (body.CancellationReasons as Json[]).map((reason) => ({
        ...reason,
        ...(isJson(reason.Item) ? { Item: fromWireItem(reason.Item as WireItem) } : {}),
      }));
    if (isJson(body.Item)) this.Item = fromWireItem(body.Item as WireItem);
  }
}

/** Whether `error` is DynamoDB's answer of this type. */
export const isDynamoError = (error: unknown, name: string): error is DynamoDbError =>
  error instanceof DynamoDbError && error.name === name;

/**
 * DynamoDB's JSON API over keep-alive HTTP, signed with Signature Version 4: what the AWS SDK's
 * document client does for these eight operations, at a tenth of its CPU per request (its middleware
 * stack, endpoint rules and serde cost ~0.4 ms a request; the service makes 15–25 per activity round
 * trip). Retries as the SDK's standard mode does: throttling, 5xx answers and broken connections, three
 * attempts with jittered exponential backoff. TransactWriteItems gets a ClientRequestToken, so a retried
 * transaction that had in fact been applied is not applied twice.
 */
export class DynamoDocClient implements DocClient {
  readonly #url: URL;
  readonly #region: string;
  readonly #credentials: () => Promise<Credentials>;
  readonly #maxAttempts: number;
  readonly #intercept: DynamoIntercept | undefined;
  readonly #agent: HttpAgent;
  readonly #request: typeof httpRequest;
  #signingKey: { readonly day: string; readonly secret: string; readonly key: Buffer } | undefined;

  constructor(options: DocClientOptions = {}) {
    const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
    if (region === undefined || region === '')
      throw new Error('DynamoDocClient: no region (options.region or AWS_REGION)');
    this.#region = region;
    this.#url = new URL(options.endpoint ?? `https://dynamodb.${region}.amazonaws.com`);
    const credentials = options.credentials;
    this.#credentials =
      credentials === undefined
        ? defaultCredentials()
        : typeof credentials === 'function'
          ? credentials
          : () => Promise.resolve(credentials);
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.#intercept = options.intercept;
    const https = this.#url.protocol === 'https:';
    this.#agent = new (https ? HttpsAgent : HttpAgent)({ keepAlive: true, maxSockets: 50 });
    this.#request = https ? httpsRequest : httpRequest;
  }

  get(input: GetCommandInput) {
    return this.#item<Output<GetCommandOutput>>('GetItem', input);
  }

  put(input: PutCommandInput) {
    return this.#item<Output<PutCommandOutput>>('PutItem', input);
  }

  update(input: UpdateCommandInput) {
    return this.#item<Output<UpdateCommandOutput>>('UpdateItem', input);
  }

  delete(input: DeleteCommandInput) {
    return this.#item<Output<DeleteCommandOutput>>('DeleteItem', input);
  }

  query(input: QueryCommandInput) {
    return this.#item<Output<QueryCommandOutput>>('Query', input);
  }

  scan(input: ScanCommandInput) {
    return this.#item<Output<ScanCommandOutput>>('Scan', input);
  }

  transactWrite(input: TransactWriteCommandInput): Promise<Output<TransactWriteCommandOutput>> {
    const items = (input.TransactItems ?? []).map((entry) => {
      const out: Json = {};
      for (const [kind, action] of Object.entries(entry) as [string, Json | undefined][])
        if (action !== undefined) out[kind] = wireRequest(action);
      return out;
    });
    return this.#send('TransactWriteItems', {
      ...input,
      TransactItems: items,
      ClientRequestToken: input.ClientRequestToken ?? randomUUID(),
    });
  }

  async batchWrite(input: BatchWriteCommandInput): Promise<Output<BatchWriteCommandOutput>> {
    const requests = (input.RequestItems ?? {}) as Batch;
    const out = await this.#send('BatchWriteItem', {
      ...input,
      RequestItems: mapBatch(requests, toWireItem),
    });
    return isJson(out.UnprocessedItems)
      ? { ...out, UnprocessedItems: mapBatch(out.UnprocessedItems as Batch, fromWireItem) }
      : out;
  }

  /** A single-table request: its keys, item and values written as attribute values, and read back. */
  async #item<T>(operation: string, input: object): Promise<T> {
    return nativeResponse(await this.#send(operation, wireRequest(input as Json))) as T;
  }

  /** Closes the idle keep-alive connections. */
  destroy(): void {
    this.#agent.destroy();
  }

  #send(operation: string, input: Json): Promise<Json> {
    const send = () => this.#withRetries(operation, input);
    return this.#intercept === undefined ? send() : this.#intercept(operation, input, send);
  }

  async #withRetries(operation: string, input: Json): Promise<Json> {
    const body = JSON.stringify(input);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#post(operation, body);
      } catch (error) {
        const retry = retryDelayBase(error);
        if (retry === undefined || attempt >= this.#maxAttempts) throw error;
        await sleep(Math.random() * Math.min(20_000, retry * 2 ** attempt));
      }
    }
  }

  async #post(operation: string, body: string): Promise<Json> {
    const headers = await this.#sign(`DynamoDB_20120810.${operation}`, body);
    const response = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = this.#request(
        this.#url,
        { method: 'POST', agent: this.#agent, headers },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    const parsed = parseBody(response.text);
    if (response.status >= 200 && response.status < 300 && parsed !== undefined) return parsed;
    const type = String(parsed?.__type ?? `HTTP${response.status}`);
    const message = String(parsed?.message ?? parsed?.Message ?? response.text.slice(0, 200));
    throw new DynamoDbError(
      type.slice(type.lastIndexOf('#') + 1),
      message,
      response.status,
      parsed ?? {},
    );
  }

  /** Signature Version 4 headers of one POST to `/` (AWS General Reference, "Signing AWS API requests"). */
  async #sign(target: string, body: string): Promise<Record<string, string>> {
    const credentials = await this.#credentials();
    const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
    const day = amzDate.slice(0, 8);
    const headers: Record<string, string> = {
      'content-type': 'application/x-amz-json-1.0',
      host: this.#url.host,
      'x-amz-date': amzDate,
      ...(credentials.sessionToken === undefined
        ? {}
        : { 'x-amz-security-token': credentials.sessionToken }),
      'x-amz-target': target,
    };
    const names = Object.keys(headers); // already in lower case and sorted
    const signedHeaders = names.join(';');
    const canonicalRequest = [
      'POST',
      '/',
      '',
      ...names.map((name) => `${name}:${headers[name]}`),
      '',
      signedHeaders,
      sha256(body),
    ].join('\n');
    const scope = `${day}/${this.#region}/dynamodb/aws4_request`;
    const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256(canonicalRequest)}`;
    const signature = createHmac('sha256', this.#keyFor(day, credentials.secretAccessKey))
      .update(stringToSign)
      .digest('hex');
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
    headers['content-length'] = String(Buffer.byteLength(body));
    return headers;
  }

  /** The day's signing key, derived once per day and secret. */
  #keyFor(day: string, secret: string): Buffer {
    const cached = this.#signingKey;
    if (cached !== undefined && cached.day === day && cached.secret === secret) return cached.key;
    let key: Buffer = createHmac('sha256', `AWS4${secret}`).update(day).digest();
    for (const part of [this.#region, 'dynamodb', 'aws4_request'])
      key = createHmac('sha256', key).update(part).digest();
    this.#signingKey = { day, secret, key };
    return key;
  }
}

const THROTTLING = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'TransactionInProgressException',
]);

/** The backoff base of an error worth another attempt (as the SDK's standard mode), or undefined. */
function retryDelayBase(error: unknown): number | undefined {
  if (error instanceof DynamoDbError) {
    if (THROTTLING.has(error.name)) return 500;
    return error.statusCode >= 500 ? 100 : undefined;
  }
  // No answer: the connection broke or could not be made (ECONNRESET, EPIPE, ECONNREFUSED, ...).
  return error instanceof Error && 'code' in error ? 100 : undefined;
}

function defaultCredentials(): () => Promise<Credentials> {
  let provider: Promise<() => Promise<Credentials>> | undefined;
  return async () => {
    provider ??= import('@aws-sdk/credential-provider-node').then((m) => m.defaultProvider());
    return (await provider)();
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isJson = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseBody(text: string): Json | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isJson(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The members of a request that hold items or attribute values, as DynamoDB JSON. */
const ITEM_MEMBERS = ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey'] as const;
/** The members of an answer that hold items. */
const ANSWER_ITEMS = ['Item', 'Attributes', 'LastEvaluatedKey'] as const;

function wireRequest(input: Json): Json {
  const out: Json = { ...input };
  for (const member of ITEM_MEMBERS)
    if (isJson(input[member])) out[member] = toWireItem(input[member] as Json);
  return out;
}

function nativeResponse(output: Json): Json {
  const out: Json = { ...output };
  for (const member of ANSWER_ITEMS)
    if (isJson(output[member])) out[member] = fromWireItem(output[member] as WireItem);
  if (Array.isArray(output.Items)) out.Items = (output.Items as WireItem[]).map(fromWireItem);
  return out;
}

type Batch = Record<string, Json[]>;

/** A BatchWriteItem's requests (or its unprocessed ones) with their items and keys converted. */
function mapBatch(requests: Batch, convert: (item: never) => Json): Batch {
  const out: Batch = {};
  for (const [table, writes] of Object.entries(requests))
    out[table] = writes.map((write) => {
      const put = write.PutRequest as Json | undefined;
      const del = write.DeleteRequest as Json | undefined;
      return put !== undefined
        ? { PutRequest: { Item: convert(put.Item as never) } }
        : { DeleteRequest: { Key: convert(del?.Key as never) } };
    });
  return out;
}
