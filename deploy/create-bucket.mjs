// Creates VIDGEN_S3_BUCKET on VIDGEN_S3_ENDPOINT if it is missing, retrying while the server starts.
// Runs in the vidgen image (deploy/compose.yaml, service "bucket"), whose SDK works with any S3-compatible server.
import { createRequire } from 'node:module';

const require = createRequire('/app/packages/server/package.json');
const { S3Client, CreateBucketCommand, HeadBucketCommand } = require('@aws-sdk/client-s3');

const bucket = process.env.VIDGEN_S3_BUCKET;
const client = new S3Client({
  endpoint: process.env.VIDGEN_S3_ENDPOINT,
  region: process.env.VIDGEN_S3_REGION || 'us-east-1',
  forcePathStyle: true,
});

for (let attempt = 1; ; attempt++) {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
    console.log(`bucket ${bucket}: exists`);
    break;
  } catch (err) {
    if (err?.$metadata?.httpStatusCode === 404) {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      console.log(`bucket ${bucket}: created`);
      break;
    }
    if (attempt >= 60) throw err;
    console.log(`bucket ${bucket}: ${err?.name ?? err}; retrying`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
