"""Drives the real openai Python SDK (openai-python src/openai/resources/batches.py and files.py),
unmodified, through a batch of video creates against a vidgen server. Argv: base URL, key, the
batch's JSONL text. Prints one JSON object of what it saw; the Node test checks it."""
import json
import sys
import time

import openai
from openai import OpenAI

base, key, lines = sys.argv[1], sys.argv[2], sys.argv[3]
client = OpenAI(api_key=key, base_url=f"{base}/v1", max_retries=0)
seen = {"version": openai.__version__}

upload = client.files.create(file=("batch.jsonl", lines.encode()), purpose="batch")
seen["file"] = upload.model_dump()
batch = client.batches.create(
    input_file_id=upload.id, endpoint="/v1/videos", completion_window="24h", metadata={"run": "python"}
)
seen["created"] = batch.model_dump()
while batch.status not in ("completed", "failed", "expired", "cancelled"):
    time.sleep(0.1)
    batch = client.batches.retrieve(batch.id)
seen["done"] = batch.model_dump()
seen["output"] = client.files.content(batch.output_file_id).text if batch.output_file_id else None
seen["errors"] = client.files.content(batch.error_file_id).text if batch.error_file_id else None

second = client.batches.create(input_file_id=upload.id, endpoint="/v1/videos", completion_window="24h")
seen["cancelling"] = client.batches.cancel(second.id).model_dump()
while second.status != "cancelled":
    time.sleep(0.1)
    second = client.batches.retrieve(second.id)
seen["cancelled"] = second.model_dump()

# Auto-pagination walks every page, one batch at a time.
seen["listed"] = [b.id for b in client.batches.list(limit=1)]
try:
    client.batches.retrieve("batch_missing")
    seen["missing"] = None
except openai.NotFoundError as err:
    seen["missing"] = {"status": err.status_code, "code": err.code}
print(json.dumps(seen))
