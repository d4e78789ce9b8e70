export const USAGE = `vidgen — submit, wait for and download videos from a vidgen server

Usage:
  vidgen generate --model <id> --prompt <text> [--image <url|path>]... [--duration N] [--ratio R] --output <file>
  vidgen submit   --model <id> --prompt <text> [--image <url|path>]... [--duration N] [--ratio R] [--output <file>]
  vidgen status   <task-id> [--family A|B]
  vidgen wait     <task-id> [--family A|B] [--output <file>]
  vidgen download <task-id> --output <file> [--family A|B]
  vidgen resume   [--no-download]
  vidgen forget   <task-id|idempotency-key>      drop a journal entry resume should stop chasing
  vidgen tasks    [--family A|B] [--status S] [--model M] [--limit N] [--after ID] [--local]
  vidgen models

Options:
  --base-url <url>        server (env VIDGEN_BASE_URL, default http://127.0.0.1:8080)
  --api-key <key>         API key (env VIDGEN_API_KEY)
  --journal-dir <dir>     where submits are journaled (env VIDGEN_JOURNAL_DIR, default ~/.vidgen/journal)
  --no-journal            do not journal (resume cannot pick these tasks up)
  --json                  print the result as JSON on stdout
  --max-wait <s>          maximum total wait (default 1200)
  --interval <s>          poll interval (default: the server's hint, else 4 s for A and 15 s for B)
  --long-poll <s>         let the server hold each poll up to this long (default 30, max 60, 0 = off)
  --download-timeout <s>  time-out of a download (default 600)
  --seed <n>              fixed seed

The model's family (from /v1/models) picks the endpoint. A local --image file is uploaded
through /v1/files for family A and sent as a data URI for family B. Every submit is journaled
before it is sent; if vidgen is interrupted, \`vidgen resume\` finishes the work.

Exit codes:
  0 ok                   5 maximum wait reached (the task goes on)
  1 usage or other error 6 submit outcome unknown (check \`vidgen tasks\` before resubmitting)
  2 request refused      7 download check failed (nothing written at --output)
  3 authentication       8 result expired
  4 task failed
`;
