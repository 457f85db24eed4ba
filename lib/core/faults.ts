/**
 * SWF faults: typed errors that serialize to the wire shape `{"__type": ..., "message": ...}` (HTTP 400).
 * Only lib/http serializes them; anything that is not an SwfFault becomes a logged 500.
 */

const MODEL_NAMESPACE = 'com.amazonaws.swf.base.model';

export abstract class SwfFault extends Error {
  abstract readonly type: string;
  /** The namespace the live service prefixes `__type` with. */
  protected readonly namespace: string = MODEL_NAMESPACE;
  readonly statusCode: number = 400;

  toWire(): { __type: string; message: string } {
    return { __type: `${this.namespace}#${this.type}`, message: this.message };
  }
}

export class UnknownResourceFault extends SwfFault {
  readonly type = 'UnknownResourceFault';
}
export class DomainAlreadyExistsFault extends SwfFault {
  readonly type = 'DomainAlreadyExistsFault';
}
export class DomainDeprecatedFault extends SwfFault {
  readonly type = 'DomainDeprecatedFault';
}
export class TypeAlreadyExistsFault extends SwfFault {
  readonly type = 'TypeAlreadyExistsFault';
}
export class TypeDeprecatedFault extends SwfFault {
  readonly type = 'TypeDeprecatedFault';
}
export class TypeNotDeprecatedFault extends SwfFault {
  readonly type = 'TypeNotDeprecatedFault';
}
export class DefaultUndefinedFault extends SwfFault {
  readonly type = 'DefaultUndefinedFault';
}
export class LimitExceededFault extends SwfFault {
  readonly type = 'LimitExceededFault';
}
export class OperationNotPermittedFault extends SwfFault {
  readonly type = 'OperationNotPermittedFault';
}
export class WorkflowExecutionAlreadyStartedFault extends SwfFault {
  readonly type = 'WorkflowExecutionAlreadyStartedFault';
}
export class TooManyTagsFault extends SwfFault {
  readonly type = 'TooManyTagsFault';
}

/** Coral framework errors: not in the SWF model, named as the live service names them. */
export class ValidationException extends SwfFault {
  readonly type = 'ValidationException';
  protected override readonly namespace = 'com.amazon.coral.validate';
}
export class SerializationException extends SwfFault {
  readonly type = 'SerializationException';
  protected override readonly namespace = 'com.amazon.coral.service';
}
export class UnknownOperationException extends SwfFault {
  readonly type = 'UnknownOperationException';
  protected override readonly namespace = 'com.amazon.coral.service';
}
export class ThrottlingException extends SwfFault {
  override readonly name: string = 'ThrottlingException';
  readonly type = 'ThrottlingException';
  protected override readonly namespace = 'com.amazon.coral.availability';
}

/** Messages the live service uses, kept in one place so every operation words them alike. */
export const faultText = {
  unknownDomain: (name: string) => `Unknown domain: ${name}`,
  unknownType: (kind: TypeKind, name: string, version: string) =>
    `Unknown type: ${typeRef(kind, name, version)}`,
  typeRef: (kind: TypeKind, name: string, version: string) => typeRef(kind, name, version),
  unknownExecution: (workflowId: string, runId?: string) =>
    runId === undefined
      ? `Unknown execution, workflowId = ${workflowId}`
      : `Unknown execution: WorkflowExecution=[workflowId=${workflowId}, runId=${runId}]`,
} as const;

export type TypeKind = 'WorkflowType' | 'ActivityType';

const typeRef = (kind: TypeKind, name: string, version: string) =>
  `${kind}=[name=${name}, version=${version}]`;
