import { describe, expect, it } from 'vitest';
import { SerializationException, ValidationException } from '../../../lib/core/faults.js';
import { validateInput } from '../../../lib/http/validate-input.js';

const messageOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof Error) return error.message;
  }
  throw new Error('expected a fault');
};

describe('validateInput', () => {
  it('accepts a valid body and drops unknown members and nulls', () => {
    const input = validateInput('ListDomainsInput', {
      registrationStatus: 'REGISTERED',
      maximumPageSize: 10,
      nextPageToken: null,
      somethingElse: 1,
    });
    expect(input).toEqual({ registrationStatus: 'REGISTERED', maximumPageSize: 10 });
  });

  it('reports a missing required member in Coral wording', () => {
    expect(messageOf(() => validateInput('DescribeDomainInput', {}))).toBe(
      "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null",
    );
  });

  it('reports every violation at once, joined with semicolons', () => {
    const message = messageOf(() =>
      validateInput('ListDomainsInput', { registrationStatus: 'GONE', maximumPageSize: 1001 }),
    );
    expect(message).toBe(
      '2 validation errors detected: ' +
        "Value 'GONE' at 'registrationStatus' failed to satisfy constraint: Member must satisfy enum value set: [REGISTERED, DEPRECATED]; " +
        "Value '1001' at 'maximumPageSize' failed to satisfy constraint: Member must have value less than or equal to 1000",
    );
  });

  it('names nested and list members with 1-based member paths', () => {
    const message = messageOf(() =>
      validateInput('RespondDecisionTaskCompletedInput', {
        taskToken: 't',
        decisions: [
          {
            decisionType: 'StartTimer',
            startTimerDecisionAttributes: { timerId: 't1', startToFireTimeout: '5' },
          },
          { decisionType: 'StartTimer', startTimerDecisionAttributes: { timerId: '' } },
        ],
      }),
    );
    expect(message).toContain("at 'decisions.2.member.startTimerDecisionAttributes.timerId'");
    expect(message).toContain(
      "Value null at 'decisions.2.member.startTimerDecisionAttributes.startToFireTimeout' failed to satisfy constraint: Member must not be null",
    );
  });

  it('checks string lengths in UTF-16 units, as the service does', () => {
    expect(() => validateInput('DescribeDomainInput', { name: 'x'.repeat(256) })).not.toThrow();
    expect(
      messageOf(() => validateInput('DescribeDomainInput', { name: 'x'.repeat(257) })),
    ).toContain('Member must have length less than or equal to 256');
  });

  it('throws SerializationException for a wrong JSON type', () => {
    expect(() => validateInput('DescribeDomainInput', { name: 5 })).toThrow(SerializationException);
    expect(messageOf(() => validateInput('DescribeDomainInput', { name: 5 }))).toBe(
      "Expected a string at 'name' but found a number",
    );
    expect(() =>
      validateInput('ListDomainsInput', { registrationStatus: 'REGISTERED', maximumPageSize: 1.5 }),
    ).toThrow(SerializationException);
    expect(() => validateInput('DescribeDomainInput', [])).toThrow(SerializationException);
  });

  it('refuses half of a surrogate pair in any string, and keeps whole pairs', () => {
    for (const name of ['X\ud800', 'X\udbffY', '\udc00X', 'X\udfff']) {
      expect(messageOf(() => validateInput('DescribeDomainInput', { name }))).toBe(
        "Expected well-formed Unicode at 'name' but found half of a surrogate pair",
      );
    }
    const decisions = [
      {
        decisionType: 'RecordMarker',
        recordMarkerDecisionAttributes: { markerName: 'm', details: 'ok \udc00' },
      },
    ];
    expect(
      messageOf(() =>
        validateInput('RespondDecisionTaskCompletedInput', { taskToken: 't', decisions }),
      ),
    ).toBe(
      "Expected well-formed Unicode at 'decisions.1.member.recordMarkerDecisionAttributes.details' but found half of a surrogate pair",
    );
    expect(validateInput('DescribeDomainInput', { name: 'emoji \ud83d\ude00' })).toEqual({
      name: 'emoji \ud83d\ude00',
    });
  });

  it('keeps a task priority as the integer it names', () => {
    const priority = (taskPriority: string) =>
      validateInput('StartWorkflowExecutionInput', {
        domain: 'd',
        workflowId: 'w',
        workflowType: { name: 't', version: '1' },
        taskPriority,
      }).taskPriority;
    expect(priority('+007')).toBe('7');
    expect(priority('-0')).toBe('0');
    expect(priority('-00012')).toBe('-12');
    expect(priority(`${'0'.repeat(900_000)}1`)).toBe('1');
    expect(priority('2147483647')).toBe('2147483647');
    expect(messageOf(() => priority('2147483648'))).toContain(
      'Member must be an integer from -2147483648 to 2147483647',
    );
    expect(messageOf(() => priority('1.5'))).toContain('Member must be an integer');
  });

  it('accepts fractional epoch seconds and numeric strings for timestamps', () => {
    const input = validateInput('CountOpenWorkflowExecutionsInput', {
      domain: 'd',
      startTimeFilter: { oldestDate: '1326592619.474', latestDate: 1326592700.5 },
    });
    expect(input.startTimeFilter).toEqual({ oldestDate: 1326592619.474, latestDate: 1326592700.5 });
    expect(() =>
      validateInput('CountOpenWorkflowExecutionsInput', {
        domain: 'd',
        startTimeFilter: { oldestDate: 'soon' },
      }),
    ).toThrow(SerializationException);
    // Number() would read these as dates; none is one
    for (const oldestDate of ['0x10', '  5  ', '', 1e308, -1e308, 8.64e12 + 1])
      expect(() =>
        validateInput('CountOpenWorkflowExecutionsInput', {
          domain: 'd',
          startTimeFilter: { oldestDate },
        }),
      ).toThrow(SerializationException);
  });

  it('applies the identifier rule where SWF creates names', () => {
    const register = (name: string) =>
      validateInput('RegisterDomainInput', { name, workflowExecutionRetentionPeriodInDays: '1' });
    for (const bad of ['a:b', 'a/b', 'a|b', 'a\u0007b', 'arn', ' lead', 'trail ']) {
      expect(() => register(bad), bad).toThrow(ValidationException);
    }
    expect(() => register('fine name-1.0')).not.toThrow();
  });

  it("takes a ':' in a child's workflowId, as the AWS Flow Frameworks name children, and nowhere else", () => {
    const child = (workflowId: string) =>
      validateInput('RespondDecisionTaskCompletedInput', {
        taskToken: 't',
        decisions: [
          {
            decisionType: 'StartChildWorkflowExecution',
            startChildWorkflowExecutionDecisionAttributes: {
              workflowType: { name: 'w', version: '1' },
              workflowId,
            },
          },
        ],
      });
    expect(() => child('Z3x9-run_id:1')).not.toThrow();
    expect(() => child('a:b:c')).not.toThrow();
    for (const bad of ['a/b', 'a|b', 'a\u0007b', 'arn']) {
      expect(() => child(bad), bad).toThrow(ValidationException);
    }
    const start = (workflowId: string) =>
      validateInput('StartWorkflowExecutionInput', {
        domain: 'd',
        workflowId,
        workflowType: { name: 'w', version: '1' },
      });
    expect(() => start('a:b')).toThrow(ValidationException);
  });

  it('checks durations, priorities and retention', () => {
    const registerType = (extra: Record<string, unknown>) =>
      validateInput('RegisterWorkflowTypeInput', {
        domain: 'd',
        name: 'n',
        version: '1',
        ...extra,
      });
    expect(() => registerType({ defaultTaskStartToCloseTimeout: 'NONE' })).not.toThrow();
    expect(() => registerType({ defaultTaskStartToCloseTimeout: '1.5' })).toThrow(
      ValidationException,
    );
    expect(() => registerType({ defaultExecutionStartToCloseTimeout: 'NONE' })).toThrow(
      ValidationException,
    );
    expect(() => registerType({ defaultExecutionStartToCloseTimeout: '31536001' })).toThrow(
      ValidationException,
    );
    expect(() => registerType({ defaultTaskPriority: '-2147483648' })).not.toThrow();
    expect(() => registerType({ defaultTaskPriority: '2147483648' })).toThrow(ValidationException);
    const retention = (days: string) =>
      validateInput('RegisterDomainInput', {
        name: 'd',
        workflowExecutionRetentionPeriodInDays: days,
      });
    expect(() => retention('90')).not.toThrow();
    expect(() => retention('NONE')).not.toThrow();
    expect(() => retention('91')).toThrow(ValidationException);
  });
});
