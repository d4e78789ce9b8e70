"""Drives the real openai Python SDK (openai-python src/openai/resources/videos/videos.py),
unmodified, through every call of client.videos against a vidgen server. Argv: base URL, key,
a PNG file. Prints one JSON object of what it saw; the Node test checks it."""
import json
import sys

import openai
from openai import OpenAI

base, key, png_path = sys.argv[1], sys.argv[2], sys.argv[3]
client = OpenAI(api_key=key, base_url=f"{base}/v1", max_retries=0)
seen = {"version": openai.__version__}

# create_and_poll honours openai-poll-after-ms (without it, it would poll every second).
first = client.videos.create_and_poll(model="sora-2", prompt="a paper boat on a pond", seconds="4", size="1280x720")
seen["first"] = first.model_dump()
with open(png_path, "rb") as png:
    with_file = client.videos.create(prompt="the frame comes alive", seconds="4", size="720x1280", input_reference=png)
seen["with_file"] = client.videos.poll(with_file.id).model_dump()

video = client.videos.download_content(first.id)
seen["video"] = {"type": video.response.headers["content-type"], "hex": video.read().hex()}
poster = client.videos.download_content(first.id, variant="thumbnail")
seen["thumbnail"] = {"type": poster.response.headers["content-type"], "size": len(poster.read())}
sprites = client.videos.download_content(first.id, variant="spritesheet")
seen["spritesheet"] = {"type": sprites.response.headers["content-type"], "size": len(sprites.read())}

seen["remix"] = client.videos.poll(client.videos.remix(first.id, prompt="make it sepia").id).model_dump()
# openai-python 3.22 takes only a file as `video` of an edit or extension (a `{"id"}` is refused
# by the SDK itself, in extract_files): the source goes up as a multipart file part.
mp4_path = png_path + ".mp4"
with open(mp4_path, "wb") as out:
    out.write(bytes.fromhex(seen["video"]["hex"]))
with open(mp4_path, "rb") as source:
    seen["edit"] = client.videos.poll(client.videos.edit(prompt="blur it", video=source).id).model_dump()
with open(mp4_path, "rb") as source:
    extension = client.videos.extend(prompt="the boat sails on", seconds="4", video=source)
seen["extend"] = client.videos.poll(extension.id).model_dump()
seen["failed"] = client.videos.poll(client.videos.remix(first.id, prompt="do the impossible").id).model_dump()

seen["desc"] = [v.id for v in client.videos.list(limit=2)]
seen["asc"] = [v.id for v in client.videos.list(limit=2, order="asc")]

deleted = client.videos.delete(first.id)
seen["deleted"] = deleted.model_dump()


def error_of(call):
    try:
        call()
    except openai.APIStatusError as err:
        return {"class": type(err).__name__, "status": err.status_code, "param": (err.body or {}).get("param")}
    return None


seen["after_delete"] = error_of(lambda: client.videos.retrieve(first.id))
seen["bad_seconds"] = error_of(lambda: client.videos.create(prompt="x", seconds="5"))
seen["bad_size"] = error_of(lambda: client.videos.create(prompt="x", size="1792x1024"))
wrong = OpenAI(api_key="vg-wrong", base_url=f"{base}/v1", max_retries=0)
seen["wrong_key"] = error_of(lambda: wrong.videos.list())
seen["unknown"] = error_of(lambda: client.videos.retrieve("video_" + "0" * 32))
print(json.dumps(seen))
