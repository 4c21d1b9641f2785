/**
 * Kafka's TransactionManager.State for the producer's side of a transaction, with its rule of which state may
 * follow which (State.isTransitionValid). ABORTABLE_ERROR leaves the producer able to abort and go on;
 * FATAL_ERROR (fenced, not authorized) leaves it able only to close.
 */
export type TransactionState =
  | 'UNINITIALIZED'
  | 'INITIALIZING'
  | 'READY'
  | 'IN_TRANSACTION'
  | 'COMMITTING_TRANSACTION'
  | 'ABORTING_TRANSACTION'
  | 'ABORTABLE_ERROR'
  | 'FATAL_ERROR';

const FROM: Readonly<Record<TransactionState, readonly TransactionState[]>> = {
  UNINITIALIZED: [],
  INITIALIZING: ['UNINITIALIZED', 'ABORTING_TRANSACTION'],
  READY: ['INITIALIZING', 'COMMITTING_TRANSACTION', 'ABORTING_TRANSACTION'],
  IN_TRANSACTION: ['READY'],
  COMMITTING_TRANSACTION: ['IN_TRANSACTION'],
  ABORTING_TRANSACTION: ['IN_TRANSACTION', 'ABORTABLE_ERROR'],
  ABORTABLE_ERROR: ['IN_TRANSACTION', 'COMMITTING_TRANSACTION', 'ABORTABLE_ERROR'],
  // Any state may become fatal.
  FATAL_ERROR: [],
};

export function isTransitionValid(source: TransactionState, target: TransactionState): boolean {
  if (target === 'UNINITIALIZED') return source === 'READY';
  if (target === 'FATAL_ERROR') return true;
  return FROM[target].includes(source);
}
