import { ledgerContract } from '../../src/billing/ledger.contract.ts';
import { createPostgresDatabase, createSqliteDatabase } from '../support/databases.ts';

ledgerContract('SQLite', createSqliteDatabase);
ledgerContract('PostgreSQL', createPostgresDatabase);
