/**
 * The API function's time is priced at nominal DynamoDB latencies: requests one SWF call sends side
 * by side (a poll's look at its queue's partitions) are one wait, for the slowest of them; requests one
 * after another, or of different calls, are waits of their own.
 */
import { describe, expect, it } from 'vitest';
import {
  aroundCall,
  CallWaits,
  DynamoCounters,
  meterDynamo,
  nominalMsOf,
} from '../../../bench/instrument.js';

const query = { TableName: 't', KeyConditionExpression: 'pk = :pk' };

describe('CallWaits', () => {
  it('counts requests out together once, for the slowest', () => {
    const waits = new CallWaits();
    expect(waits.start('Query')).toBe(nominalMsOf('Query'));
    expect(waits.start('Query')).toBe(0);
    expect(waits.start('PutItem')).toBe(nominalMsOf('PutItem') - nominalMsOf('Query'));
    expect(waits.start('GetItem')).toBe(0);
    for (let i = 0; i < 4; i++) waits.end();
    // Out alone again: a wait of its own.
    expect(waits.start('GetItem')).toBe(nominalMsOf('GetItem'));
  });
});

describe('meterDynamo within calls', () => {
  const answer = async () => ({ Items: [], Count: 0 });
  const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

  it('prices four parallel queries of one call as one wait, sequential ones each', async () => {
    const counters = new DynamoCounters();
    const intercept = meterDynamo(counters);
    const send = () => tick().then(answer);
    await aroundCall(async () => {
      await Promise.all([0, 1, 2, 3].map(() => intercept('Query', { ...query }, send)));
      await intercept('Query', { ...query }, send);
    });
    expect(counters.apiNominalMs).toBe(2 * nominalMsOf('Query'));
    expect(counters.byOrigin.api.Query).toBe(5);
  });

  it('keeps calls apart: two calls at once each wait', async () => {
    const counters = new DynamoCounters();
    const intercept = meterDynamo(counters);
    const send = () => tick().then(answer);
    const oneCall = () => aroundCall(() => intercept('Query', { ...query }, send));
    await Promise.all([oneCall(), oneCall()]);
    expect(counters.apiNominalMs).toBe(2 * nominalMsOf('Query'));
  });

  it('counts requests outside any call one after another, as before', async () => {
    const counters = new DynamoCounters();
    const intercept = meterDynamo(counters);
    const send = () => tick().then(answer);
    await Promise.all([0, 1].map(() => intercept('Query', { ...query }, send)));
    expect(counters.apiNominalMs).toBe(2 * nominalMsOf('Query'));
  });
});
