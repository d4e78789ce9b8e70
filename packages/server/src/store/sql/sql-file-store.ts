import type { Kysely, Selectable } from 'kysely';
import type { FileRecord, FileStore } from '../file-store.ts';
import type { Database, FilesTable } from './schema.ts';

export class SqlFileStore implements FileStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(file: FileRecord): Promise<void> {
    await this.db
      .insertInto('files')
      .values({
        id: file.id,
        account_id: file.accountId,
        filename: file.filename,
        bytes: file.bytes,
        mime_type: file.mimeType,
        purpose: file.purpose,
        blob_key: file.blobKey,
        created_at: file.createdAt,
        expires_at: file.expiresAt ?? null,
        lines: file.lines ?? null,
      })
      .execute();
  }

  async get(id: string): Promise<FileRecord | undefined> {
    const row = await this.db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toFile(row) : undefined;
  }

  async due(now: number, limit: number): Promise<FileRecord[]> {
    const rows = await this.db
      .selectFrom('files')
      .selectAll()
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map(toFile);
  }

  async expireAt(ids: readonly string[], at: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('files').set({ expires_at: at }).where('id', 'in', ids).execute();
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('files').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}

function toFile(row: Selectable<FilesTable>): FileRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    filename: row.filename,
    bytes: Number(row.bytes),
    mimeType: row.mime_type,
    purpose: row.purpose,
    blobKey: row.blob_key,
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    ...(row.lines === null ? {} : { lines: Number(row.lines) }),
  };
}
