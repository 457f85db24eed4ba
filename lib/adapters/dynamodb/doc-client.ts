import { randomUUID } from 'node:crypto';
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
import { AwsJsonError, type Json, JsonRpcClient } from '../../aws-json/rpc-client.js';
import { type Credentials, SigV4Signer } from '../../aws-json/sigv4.js';
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

export type { Credentials };

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
  /** The endpoint the environment names, as for the AWS SDK (environmentEndpoint), else the region's; DynamoDB Local's URL locally. */
  readonly endpoint?: string;
  /** Fixed credentials, or where to get them (the SDK's default chain when left out). */
  readonly credentials?: Credentials | (() => Promise<Credentials>);
  /** Attempts per request for throttling, 5xx answers and broken connections (3, as the SDK's). */
  readonly maxAttempts?: number;
  /**
   * How long one attempt may wait for DynamoDB's answer before it is given up (and retried, as a broken
   * connection is). 300 s by default; a Lambda function sets far less, or one stalled connection would
   * outlast the function.
   */
  readonly requestTimeoutMs?: number;
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
    /**
     * How many times the client sent the request: past one, an earlier try may have been applied
     * although its answer was lost (a timeout, a reset, a 500), and this answer is the retry's.
     */
    readonly attempts = 1,
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
 * DynamoDB's JSON API through the lean AWS JSON client (lib/aws-json): what the AWS SDK's document
 * client does for these eight operations, without the CPU its middleware stack, endpoint rules and
 * serde spend on each request (~0.4 ms; the service makes 15–25 requests per activity round trip).
 * Retries as the SDK's standard mode does: throttling, 5xx answers and broken connections, three
 * attempts with jittered exponential backoff. TransactWriteItems gets a ClientRequestToken, so a
 * retried transaction that had in fact been applied is not applied twice.
 */
export class DynamoDocClient implements DocClient {
  readonly #rpc: JsonRpcClient;
  readonly #intercept: DynamoIntercept | undefined;

  constructor(options: DocClientOptions = {}) {
    const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
    if (region === undefined || region === '')
      throw new Error('DynamoDocClient: no region (options.region or AWS_REGION)');
    const credentials = options.credentials;
    this.#rpc = new JsonRpcClient({
      endpoint: options.endpoint ?? environmentEndpoint(region),
      signer: new SigV4Signer(region, 'dynamodb'),
      targetPrefix: 'DynamoDB_20120810',
      credentials:
        credentials === undefined
          ? defaultCredentials()
          : typeof credentials === 'function'
            ? credentials
            : () => Promise.resolve(credentials),
      ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
      ...(options.requestTimeoutMs === undefined
        ? {}
        : { requestTimeoutMs: options.requestTimeoutMs }),
    });
    this.#intercept = options.intercept;
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
    this.#rpc.destroy();
  }

  #send(operation: string, input: Json): Promise<Json> {
    const send = () => this.#call(operation, input);
    return this.#intercept === undefined ? send() : this.#intercept(operation, input, send);
  }

  async #call(operation: string, input: Json): Promise<Json> {
    try {
      return (await this.#rpc.call(operation, JSON.stringify(input))).body;
    } catch (error) {
      if (!(error instanceof AwsJsonError)) throw error;
      throw new DynamoDbError(
        error.name,
        error.message,
        error.statusCode,
        error.body,
        error.attempts,
      );
    }
  }
}

/**
 * The AWS partitions by region name, with their DNS suffixes (the AWS SDK's partitions: a region none
 * names is taken for the `aws` partition, as the SDK does).
 */
const PARTITIONS: readonly {
  readonly regions: RegExp;
  readonly dns: string;
  readonly dualStack: string;
}[] = [
  { regions: /^cn-/, dns: 'amazonaws.com.cn', dualStack: 'api.amazonwebservices.com.cn' },
  { regions: /^us-iso-/, dns: 'c2s.ic.gov', dualStack: 'api.aws.ic.gov' },
  { regions: /^us-isob-/, dns: 'sc2s.sgov.gov', dualStack: 'api.aws.scloud' },
  { regions: /^us-isof-/, dns: 'csp.hci.ic.gov', dualStack: 'api.aws.hci.ic.gov' },
  { regions: /^eu-isoe-/, dns: 'cloud.adc-e.uk', dualStack: 'api.cloud-aws.adc-e.uk' },
  { regions: /^eusc-/, dns: 'amazonaws.eu', dualStack: 'api.amazonwebservices.eu' },
];
const AWS_PARTITION = { dns: 'amazonaws.com', dualStack: 'api.aws' };

export interface EndpointVariant {
  /** FIPS 140 validated endpoint (AWS_USE_FIPS_ENDPOINT). */
  readonly fips?: boolean;
  /** IPv4 and IPv6 endpoint (AWS_USE_DUALSTACK_ENDPOINT). */
  readonly dualStack?: boolean;
}

/**
 * DynamoDB's regional endpoint, as the AWS SDK's endpoint rules give it: `https://dynamodb.<region>.<the
 * partition's DNS suffix>`, `dynamodb-fips` for FIPS (except in GovCloud, whose regular endpoints are
 * FIPS endpoints), under the partition's dual-stack suffix for dual-stack.
 */
export function dynamoDbEndpoint(region: string, variant: EndpointVariant = {}): string {
  const partition = PARTITIONS.find((p) => p.regions.test(region)) ?? AWS_PARTITION;
  const suffix = variant.dualStack === true ? partition.dualStack : partition.dns;
  const fips =
    variant.fips === true && !(region.startsWith('us-gov-') && variant.dualStack !== true);
  return `https://dynamodb${fips ? '-fips' : ''}.${region}.${suffix}`;
}

/**
 * The endpoint the AWS SDK would take from the environment: AWS_ENDPOINT_URL_DYNAMODB, else
 * AWS_ENDPOINT_URL (both ignored when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is true), else the region's,
 * FIPS and dual-stack as AWS_USE_FIPS_ENDPOINT and AWS_USE_DUALSTACK_ENDPOINT say.
 */
export function environmentEndpoint(
  region: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const flag = (name: string) => env[name]?.trim().toLowerCase() === 'true';
  if (!flag('AWS_IGNORE_CONFIGURED_ENDPOINT_URLS')) {
    const configured = [env.AWS_ENDPOINT_URL_DYNAMODB, env.AWS_ENDPOINT_URL].find(
      (url) => url !== undefined && url.trim() !== '',
    );
    if (configured !== undefined) return configured.trim();
  }
  return dynamoDbEndpoint(region, {
    fips: flag('AWS_USE_FIPS_ENDPOINT'),
    dualStack: flag('AWS_USE_DUALSTACK_ENDPOINT'),
  });
}

function defaultCredentials(): () => Promise<Credentials> {
  let provider: Promise<() => Promise<Credentials>> | undefined;
  return async () => {
    provider ??= import('@aws-sdk/credential-provider-node').then((m) => m.defaultProvider());
    return (await provider)();
  };
}

const isJson = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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
