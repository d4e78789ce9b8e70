export const USAGE = `vidgen — submit, wait for and download videos from a vidgen server

Usage:
  vidgen <command> [flags]          vidgen <command> --help for its flags

Commands:
  generate   submit, wait with progress, download               (--model --prompt [--output])
  submit     submit only; \`vidgen resume\` collects it later
  edit       re-render a video with a new prompt (family A)     (--model --prompt --video)
  extend     continue a video by N seconds (family A)           (--model --prompt --video --duration)
  status     one look at a task
  wait       wait for a task, optionally download it
  download   download a finished task's video, or its poster or sprite sheet
  cancel     cancel a queued or running task
  tasks      list tasks (the server's, or this machine's journal with --local)
  models     the models this key may use: what each does and costs
  resume     finish everything the journal still owes
  forget     drop a journal entry resume should stop chasing
  login      save a server and key in ~/.vidgen/profile.json
  logout     delete the saved profile
  webhooks   \`webhooks listen --forward-to URL\`: receive this account's events locally   (--forward-to)
  mcp        an MCP server on stdio for agents, bridged to the server's /mcp (docs/mcp.md)

Global flags:
  --base-url <url>        server (env VIDGEN_BASE_URL, then the profile, default http://127.0.0.1:8080)
  --api-key <key>         API key (env VIDGEN_API_KEY, then the profile)
  --journal-dir <dir>     where submits are journaled (env VIDGEN_JOURNAL_DIR, default ~/.vidgen/journal)
  --no-journal            do not journal (resume cannot pick these tasks up)
  --json                  print the result as JSON on stdout
  -h, --help              help; --version prints the version

Every submit is journaled (per server and key) before it is sent; if vidgen is interrupted,
\`vidgen resume\` finishes the work.

Exit codes:
  0 ok                   5 maximum wait reached (the task goes on)
  1 usage or other error 6 submit outcome unknown (check \`vidgen tasks\` before resubmitting)
  2 request refused      7 download check failed (nothing written at --output)
  3 authentication       8 result expired
  4 task failed          130 interrupted
`;

const WAIT_FLAGS = `  --max-wait <s>          maximum total wait (default 1200)
  --interval <s>          poll interval when the server does not long-poll (default: its hint, else 4 s A, 15 s B)
  --long-poll <s>         let the server hold each poll up to this long (default 30, max 60, 0 = off)
  --download-timeout <s>  time-out of a download (default 600)`;

const CREATE_FLAGS = `  -m, --model <id>        a model from \`vidgen models\` (its family picks the endpoint)
  -p, --prompt <text>     what to show: picture, action, camera
  -i, --image <url|path>  first frame / reference image; repeat for several (family B). A local file is
                          uploaded (A) or sent as a data URI (B), for every input flag below too
  --last-frame <url|path> the image the video ends on
  --keyframe <s>=<url|path>
                          an image the video shows at <s> seconds (after 0, before the end); repeat
                          for several (family A), e.g. --keyframe 2.5=middle.png
  --reference <url|path>  a reference image that shapes the scene; repeat for several (family B:
                          after an --image, which stays the first frame)
  --reference-audio <url|path>
                          the soundtrack's bed (WAV, MP3, AAC/M4A; at most 15 s); implies --audio
                          (family A). Which inputs a model takes: docs/inputs.md, \`inputs\` in /v1/models
  -d, --duration <s>      seconds (family A; family B models fix it in their name)
  -r, --ratio <w:h>       aspect ratio, e.g. 16:9, 9:16, 1:1
  --seed <n>              fixed seed
  --audio                 with sound (\`vidgen models\` says which models offer it)`;

const VARIANT_FLAGS = `  -m, --model <id>        a model offering edits/extensions (\`vidgen models\`)
  -p, --prompt <text>     what to change or how to continue
  --video <ref>           the source: a finished request_id, an http(s) URL of an MP4, or a local MP4 (uploaded)
  --audio                 with sound (\`vidgen models\` says which models offer it)`;

const OUTPUT_HERE = `  -o, --output <file>     where the MP4 goes (default <task-id>.mp4 here)
  --no-download           submit only; print the task id`;

/** Per-command help, as \`gh <command> --help\` prints it. */
export const COMMAND_HELP: Record<string, string> = {
  generate:
    `Submit a task, wait for it with progress, download the video.\n\nUsage: vidgen generate --model <id> --prompt ` +
    `<text> [--image <url|path>]... [--last-frame, --keyframe, --reference, --reference-audio] [--output <file>]` +
    `\n\n${CREATE_FLAGS}\n  -o, --output <file>     where the MP4 ` +
    `goes (written atomically; default <task-id>.mp4 in the current directory)\n${WAIT_FLAGS}\n`,
  submit:
    `Submit a task and print its id. With --output, \`vidgen resume\` later downloads it there.\n\nUsage: vidgen ` +
    `submit --model <id> --prompt <text> [--image <url|path>]... [--output <file>]\n\n${CREATE_FLAGS}\n  -o, ` +
    `--output <file>     where \`vidgen resume\` saves the result\n`,
  edit: `Re-render a finished video with a new prompt (family A models that offer edits).

Usage: vidgen edit --model <id> --prompt <text> --video <ref> [--output <file>]

${VARIANT_FLAGS}
${OUTPUT_HERE}
${WAIT_FLAGS}
`,
  extend: `Continue a finished video by --duration seconds (family A models that offer extensions).

Usage: vidgen extend --model <id> --prompt <text> --video <ref> --duration <s> [--output <file>]

${VARIANT_FLAGS}
  -d, --duration <s>      seconds to add (1-10)
${OUTPUT_HERE}
${WAIT_FLAGS}
`,
  status:
    `One look at a task: status, progress, error, link.\n\nUsage: vidgen status <task-id> [--family A|B]\n\n  ` +
    `--family A|B            skip finding out which family the id belongs to\n`,
  wait:
    `Wait for a task to end; with --output, download it.\n\nUsage: vidgen wait <task-id> [--family A|B] [--output ` +
    `<file>]\n\n  --family A|B            the task's family (else from the journal, else asked of the server)\n  ` +
    `-o, --output <file>     download the video here when done\n${WAIT_FLAGS}\n`,
  download: `Download a finished task's video (checked: status, type, length, MP4 signature; resumable).

Usage: vidgen download <task-id> [--output <file>] [--family A|B] [--variant thumbnail|spritesheet]

  -o, --output <file>     where the MP4 (or the image) goes
                          (default <task-id>.mp4, .thumbnail.webp or .spritesheet.jpg here)
  --variant <name>        instead of the video: thumbnail (WebP poster) or spritesheet (JPEG, 5x2 frames)
  --family A|B            the task's family
  --download-timeout <s>  time-out (default 600)
`,
  cancel:
    `Cancel a queued or running task. It ends failed (A) or FAILURE (B) with error code canceled.\n\nUsage: vidgen ` +
    `cancel <task-id> [--family A|B]\n\n  --family A|B            the task's family\n`,
  tasks:
    `List tasks, newest first: the server's listing of both families, or this machine's journal.\n\nUsage: vidgen ` +
    `tasks [--family A|B] [--status S] [--model M] [--limit N] [--after ID] [--local]\n\n  --family A|B            ` +
    `one family only\n  --status S              in the family's words (pending/done/… or queued/IN_PROGRESS/…)\n  ` +
    `--model M               one model only\n  --limit N               at most N rows in all (default 20, max ` +
    `100)\n  --after ID              the page after this task id\n  --local                 this machine's journal ` +
    `for the current server and key\n`,
  models:
    `The models this API key may use: family, seconds, what each offers (generate, edit, extend; whether it needs ` +
    `an image),\nthe price per second this key's account pays, and aspect ratios.\n\nUsage: vidgen models [--json]\n`,
  resume:
    `Finish what the journal still owes for the current server and key: reconcile submits that got no\nanswer, ` +
    `wait for running tasks, download finished ones to the path they were submitted with.\nEntries of other ` +
    `servers or keys are listed and left alone.\n\nUsage: vidgen resume [--no-download]\n\n  --no-download         ` +
    `  wait, but do not download\n${WAIT_FLAGS}\n`,
  mcp:
    `An MCP server on stdin/stdout for desktop agents (Claude Desktop, Cursor, VS Code): each JSON-RPC message ` +
    `is\nforwarded to <base URL>/mcp with the API key, and the server's answers and notifications are written ` +
    `back,\none per line. The tools and the task flow are the server's (docs/mcp.md).\n\nUsage: VIDGEN_BASE_URL=` +
    `<url> VIDGEN_API_KEY=<key> vidgen mcp\n`,
  webhooks:
    `Receive this account's webhook events on a machine without a public address: listen on loopback,\nregister ` +
    `that URL as a temporary endpoint (the server must allow private URLs: VIDGEN_ALLOW_PRIVATE_URLS),\nverify ` +
    `each delivery and forward it, headers and body unchanged, to --forward-to. Ctrl-C deletes the ` +
    `endpoint.\n\nUsage: vidgen webhooks listen --forward-to <url> [--port N] [--events ` +
    `video.completed,video.failed]\n                              [--since <time> [--until <time>]]\n\n  ` +
    `--forward-to <url>      where verified events are POSTed; its status is the server's answer\n  --port N       ` +
    `         loopback port to listen on (default: any free one)\n  --events a,b            subscribe to these ` +
    `events only (default all)\n  --since <time>          replay the account's events since then first (2h, 30m, ` +
    `1d, Unix seconds or RFC 3339)\n  --until <time>          ...and before then (default: now)\n`,
  forget: `Drop a journal entry that resume should stop chasing.\n\nUsage: vidgen forget <task-id|idempotency-key>\n`,
  login:
    `Save a server and API key as the default profile (~/.vidgen/profile.json, readable by you only).\nThe key is ` +
    `checked against the server first. VIDGEN_BASE_URL and VIDGEN_API_KEY still win.\n\nUsage: vidgen login ` +
    `[--base-url <url>] [--api-key <key>]\n       echo "$KEY" | vidgen login --base-url <url>\n\n  --base-url ` +
    `<url>        the server (default http://127.0.0.1:8080)\n  --api-key <key>         the key; without it, read ` +
    `from standard input\n`,
  logout: `Delete the saved profile (~/.vidgen/profile.json).\n\nUsage: vidgen logout\n`,
};
