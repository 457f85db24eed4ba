import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { SwfStack } from '../../infra/swf-stack.js';
import { createTableInput, tableSchema } from '../../lib/adapters/dynamodb/table-schema.js';

describe('SwfStack', () => {
  let template: Template;

  // One synth per file: it bundles functions/api.ts with esbuild (the project sets no hookTimeout).
  beforeAll(() => {
    template = Template.fromStack(new SwfStack(new App(), 'TestSwfStack'));
  }, 120_000);

  const tableId = () => only(template.findResources('AWS::DynamoDB::Table'));
  const functionId = () => only(template.findResources('AWS::Lambda::Function'));

  describe('table', () => {
    it('has the keys, indexes and key attribute types of the local table (createTableInput)', () => {
      const local = createTableInput('unused');
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'gsi1',
            KeySchema: [
              { AttributeName: 'gsi1pk', KeyType: 'HASH' },
              { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      });
      // The same schema as the local server's table, field by field.
      const props = template.findResources('AWS::DynamoDB::Table')[tableId()]?.Properties;
      expect(props?.KeySchema).toEqual(local.KeySchema);
      expect(props?.GlobalSecondaryIndexes).toEqual(local.GlobalSecondaryIndexes);
      expect(sortByName(props?.AttributeDefinitions)).toEqual(
        sortByName(local.AttributeDefinitions),
      );
    });

    it('expires items by expiresAt and streams new and old images', () => {
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      });
      expect(tableSchema.timeToLiveAttribute).toBe('expiresAt');
    });

    it('is on demand, point-in-time recoverable and retained by default', () => {
      template.hasResource('AWS::DynamoDB::Table', {
        Properties: {
          BillingMode: 'PAY_PER_REQUEST',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        },
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
      });
    });
  });

  describe('api function', () => {
    it('runs Node 22 on ARM64 with the table name, account id and source maps', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Environment: {
          Variables: Match.objectLike({
            TABLE_NAME: { Ref: tableId() },
            ACCOUNT_ID: { Ref: 'AWS::AccountId' },
            POLL_MAX_WAIT_MS: '20000',
            NODE_OPTIONS: '--enable-source-maps',
          }),
        },
        LoggingConfig: { LogGroup: Match.anyValue() },
      });
    });

    it('logs to its own log group with a retention', () => {
      template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    });

    it('may read and write the table and its indexes', () => {
      const tableArn = { 'Fn::GetAtt': [tableId(), 'Arn'] };
      const policies = template.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: Match.stringLikeRegexp('^ApiHandlerServiceRole') }] },
      });
      const statements: unknown = Object.values(policies)[0]?.Properties.PolicyDocument.Statement;
      expect(statements).toEqual(
        expect.arrayContaining([
          {
            Effect: 'Allow',
            Action: expect.arrayContaining([
              'dynamodb:GetItem',
              'dynamodb:PutItem',
              'dynamodb:UpdateItem',
              'dynamodb:DeleteItem',
              'dynamodb:Query',
              'dynamodb:ConditionCheckItem',
            ]),
            Resource: [tableArn, { 'Fn::Join': ['', [tableArn, '/index/*']] }],
          },
        ]),
      );
    });

    it('raises alarms on errors, throttles and 5xx answers', () => {
      for (const metric of ['Errors', 'Throttles']) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/Lambda',
          MetricName: metric,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId() } }],
          Threshold: 1,
        });
      }
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/ApiGateway',
        MetricName: '5xx',
      });
    });
  });

  describe('HTTP API', () => {
    it('routes POST / with IAM authorization to the api function (payload v2)', () => {
      const integrations = template.findResources('AWS::ApiGatewayV2::Integration', {
        Properties: {
          IntegrationType: 'AWS_PROXY',
          PayloadFormatVersion: '2.0',
          IntegrationUri: { 'Fn::GetAtt': [functionId(), 'Arn'] },
        },
      });
      const integrationId = only(integrations);
      template.resourceCountIs('AWS::ApiGatewayV2::Route', 1);
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: 'POST /',
        AuthorizationType: 'AWS_IAM',
        Target: { 'Fn::Join': ['', ['integrations/', { Ref: integrationId }]] },
      });
    });

    it('outputs the endpoint', () => {
      const apiId = only(template.findResources('AWS::ApiGatewayV2::Api'));
      template.hasOutput('SwfEndpoint', { Value: { 'Fn::GetAtt': [apiId, 'ApiEndpoint'] } });
    });
  });
});

function only(resources: Record<string, unknown>): string {
  const ids = Object.keys(resources);
  expect(ids).toHaveLength(1);
  return ids[0] ?? '';
}

function sortByName(definitions: unknown): unknown {
  if (!Array.isArray(definitions)) return definitions;
  return definitions
    .map((d: unknown) => JSON.stringify(d))
    .sort()
    .map((d) => JSON.parse(d));
}
