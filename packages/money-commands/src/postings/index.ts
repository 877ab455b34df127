export {
  type AwaitedRecord,
  type AwaitedRecords,
  AWAITING_LEDGER_TABLE,
  AwaitingLedger,
  createAwaitingLedgerTable,
} from './awaiting-ledger';
export {
  type LedgerEventsConsumerOptions,
  type PostingFinisher,
  PostingFinishers,
  startLedgerEventsConsumer,
} from './ledger-events-consumer';
export {
  type AnnouncedRecords,
  type CommandAnnouncements,
  commandEventType,
  eventOfResult,
  type PostingAnnouncer,
  postingAnnouncer,
} from './announcements';
export { coalesceLedgerCommands, postCommandOf, postingMessage, type RecordPosting } from './posting-message';
export { type PendingReply, PostingReplies } from './posting-replies';
export { type Postings, type RecordPostings, startPostings } from './postings';
