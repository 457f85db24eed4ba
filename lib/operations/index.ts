import type { SwfAction } from '../http/swf-model.js';
import type { Operation } from './context.js';
import {
  deprecateDomain,
  describeDomain,
  listDomains,
  registerDomain,
  undeprecateDomain,
} from './domains.js';
import { listTagsForResource, tagResource, untagResource } from './tags.js';
import { typeOperations } from './types.js';

/** Every SWF action this service answers, by its X-Amz-Target name. */
export const operations: Partial<Record<SwfAction, Operation>> = {
  RegisterDomain: registerDomain,
  DescribeDomain: describeDomain,
  ListDomains: listDomains,
  DeprecateDomain: deprecateDomain,
  UndeprecateDomain: undeprecateDomain,
  ...typeOperations,
  TagResource: tagResource,
  UntagResource: untagResource,
  ListTagsForResource: listTagsForResource,
};
