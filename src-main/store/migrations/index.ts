/**
 * All schema migrations, in order. A migration is never edited once released; add a new one.
 * (0012 follows 0010: number 11 is taken by a parallel branch, call_evidence.)
 * Each has its own test in test/store/migration_NNNN.test.ts.
 */
import type { Migration } from '../migration';
import { migration0001 } from './0001_initial';
import { migration0002 } from './0002_engine';
import { migration0003 } from './0003_collections';
import { migration0004 } from './0004_retrieval';
import { migration0005 } from './0005_remote_endpoints';
import { migration0006 } from './0006_experiments';
import { migration0007 } from './0007_conversations';
import { migration0008 } from './0008_job_owner';
import { migration0009 } from './0009_call_queue';
import { migration0010 } from './0010_model_tuning';
import { migration0011 } from './0011_call_evidence';
import { migration0012 } from './0012_retrieval_tie_order';
import { migration0013 } from './0013_call_claims';

export const migrations: readonly Migration[] = [
  migration0001,
  migration0002,
  migration0003,
  migration0004,
  migration0005,
  migration0006,
  migration0007,
  migration0008,
  migration0009,
  migration0010,
  migration0011,
  migration0012,
  migration0013,
];
