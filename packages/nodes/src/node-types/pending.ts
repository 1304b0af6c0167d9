import type { NodeType } from '@weft/contracts';
import { NodeFailure } from '../types';

/** The execute of a built-in type whose implementation has not landed yet. */
export function notBuiltYet(type: NodeType) {
  return async (): Promise<never> => {
    throw new NodeFailure('unknown', `Node type '${type}' is not implemented in this version of Weft`);
  };
}
