# vidgen: one image for every role (`--role api|worker|all`) and the operator commands
# (`keys`, `accounts`, `credits`, `ledger`, `migrate`). Configuration comes from the environment only;
# docs/deploy.md has the variables, the compose stack and the Helm chart that run it.
#   docker build -t vidgen .        (podman: add --format docker, or the HEALTHCHECK is dropped)

FROM node:24-bookworm-slim AS build
# better-sqlite3 compiles its addon when no prebuilt binary can be downloaded (offline builds): the
# toolchain stays in this stage, and node-gyp takes the headers the node image ships.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local
WORKDIR /app
# npm ci runs every install script: better-sqlite3's addon, the server workspace's `prepare`, which
# builds the server, and the root's `prepare`, which builds the SDK (npm runs a workspace's `prepare`
# even under --ignore-scripts, so the sources come first). Then the dev dependencies go; npm 11 (Node
# 24's) runs the workspaces' `prepare` on a prune too, after tsup is gone, so the prune runs no scripts.
# ffmpeg/ffprobe are the npm-shipped binaries, as outside.
COPY package.json package-lock.json tsconfig.base.json ./
COPY packages packages
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && chmod a+rx node_modules/@ffmpeg-installer/linux-x64/ffmpeg node_modules/@ffprobe-installer/linux-x64/ffprobe
# What runs: the server's build (TypeScript sources are bundled in it), the console's browser sources
# (bundled at start), the SDK build the console imports, and production dependencies.
RUN mkdir -p /out/packages/server /out/packages/console/src /out/packages/client /out/packages/protocol \
 && cp -a package.json package-lock.json node_modules /out/ \
 && cp -a packages/server/package.json packages/server/bin packages/server/dist /out/packages/server/ \
 && cp -a packages/console/package.json /out/packages/console/ \
 && cp -a packages/console/src/app /out/packages/console/src/ \
 && cp -a packages/client/package.json packages/client/dist /out/packages/client/ \
 && cp -a packages/protocol/package.json /out/packages/protocol/ \
 && rm -rf /out/node_modules/better-sqlite3/deps /out/node_modules/better-sqlite3/src \
   /out/node_modules/better-sqlite3/build/Release/obj* /out/node_modules/better-sqlite3/build/deps \
   /out/node_modules/better-sqlite3/build/Release/test_extension.node
# Fails the build when a dependency is missing or the bin would fall back to the TypeScript sources:
# a green `npm ci` is not proof (it can exit 0 with a partial node_modules when TLS is intercepted).
RUN cd /out && VIDGEN_DATA_DIR=/tmp/selftest node packages/server/bin/vidgen-server.mjs migrate \
 && node -e "import('sharp').then(() => import('/out/packages/server/bin/fresh-build.mjs')).then((m) => \
   process.exit(m.buildIsFresh() ? 0 : 1))" \
 && node_modules/@ffmpeg-installer/linux-x64/ffmpeg -hide_banner -version >/dev/null \
 && node_modules/@ffprobe-installer/linux-x64/ffprobe -hide_banner -version >/dev/null

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 VIDGEN_DATA_DIR=/data
COPY --from=build /out /app
# Creates the bucket on any S3-compatible server (the compose stack's and the chart's bucket jobs).
COPY deploy/create-bucket.mjs /app/deploy/
RUN ln -s /app/packages/server/bin/vidgen-server.mjs /usr/local/bin/vidgen-server \
 && mkdir /data && chown node:node /data
# SQLite, local blobs and the generated signing secret of the embedded mode; unused by the API and
# worker roles on PostgreSQL and S3 (docs/deploy.md).
VOLUME /data
WORKDIR /app
USER node
EXPOSE 8080
# Every role answers /healthz; readiness (/readyz) is for the orchestrator's probes.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node is PID 1 and handles SIGTERM itself: it stops taking requests and tasks, lets running renders
# finish for VIDGEN_SHUTDOWN_GRACE_SECONDS (give the container longer than that to stop) and hands
# the rest back to the queue. The role comes from --role or VIDGEN_ROLE (default: all).
ENTRYPOINT ["vidgen-server"]
