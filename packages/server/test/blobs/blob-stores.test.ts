import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blobStoreContract } from '../../src/blobs/blob-store.contract.ts';
import { LocalDiskBlobStore } from '../../src/blobs/local-disk-blob-store.ts';
import { S3BlobStore } from '../../src/blobs/s3-blob-store.ts';
import { startS3Server } from '../support/s3-server.ts';

blobStoreContract('local disk', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-blobs-'));
  return { store: new LocalDiskBlobStore(dir), close: () => rm(dir, { recursive: true, force: true }) };
});

blobStoreContract('S3 (s3rver on loopback)', async () => {
  const server = await startS3Server();
  if (typeof server === 'string') return server;
  const store = new S3BlobStore({
    bucket: server.bucket,
    region: server.region,
    endpoint: server.endpoint,
    forcePathStyle: true,
    credentials: server.credentials,
    prefix: 'deployment-1',
  });
  return {
    store,
    async close() {
      store.destroy();
      await server.close();
    },
  };
});
