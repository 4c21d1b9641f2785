/**
 * Kafka 2.8's TransactionState: the states a transactional id moves through, their status byte in the
 * `__transaction_state` value (TransactionLog's transaction_status) and the states each may be entered from
 * (TransactionState.validPreviousStates).
 */
export type TransactionState = 'Empty' | 'Ongoing' | 'PrepareCommit' | 'PrepareAbort' | 'CompleteCommit' | 'CompleteAbort' | 'Dead' | 'PrepareEpochFence';

/** The status bytes, indexed by byte (Kafka's TransactionState.byte). */
export const TRANSACTION_STATES: readonly TransactionState[] = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence'];

export function transactionStateByte(state: TransactionState): number {
  return TRANSACTION_STATES.indexOf(state);
}

/** The state of a status byte; Kafka throws IllegalStateException for an unknown one. */
export function transactionStateFromByte(b: number): TransactionState {
  const state = TRANSACTION_STATES[b];
  if (state === undefined) throw new Error(`Unknown transaction state byte ${b} from the transaction status message`);
  return state;
}

const VALID_PREVIOUS: Readonly<Record<TransactionState, readonly TransactionState[]>> = {
  Empty: ['Empty', 'CompleteCommit', 'CompleteAbort'],
  Ongoing: ['Ongoing', 'Empty', 'CompleteCommit', 'CompleteAbort'],
  PrepareCommit: ['Ongoing'],
  PrepareAbort: ['Ongoing', 'PrepareEpochFence'],
  CompleteCommit: ['PrepareCommit'],
  CompleteAbort: ['PrepareAbort'],
  Dead: ['Empty', 'CompleteAbort', 'CompleteCommit'],
  PrepareEpochFence: ['Ongoing'],
};

export function isValidPreviousState(target: TransactionState, current: TransactionState): boolean {
  return VALID_PREVIOUS[target].includes(current);
}
