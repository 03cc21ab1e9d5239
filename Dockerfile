# syntax=docker/dockerfile:1
# `omniloop serve` on a box (README: "Run the server in Docker"). The build context is the
# repository's root after `npm ci && npm run build && npm pack -w packages/core -w packages/client
# -w packages/server -w packages/cli`: the image installs the four packed tarballs, as a user installs them.
FROM node:20-bookworm-slim AS install
ARG VERSION=0.1.0
# better-sqlite3 (the store's SQLite binding) installs a prebuilt binary, or compiles one where
# none can be downloaded: the compilers stay in this stage, out of the image that runs.
RUN apt-get update \
	&& apt-get install -y --no-install-recommends python3 make g++ \
	&& rm -rf /var/lib/apt/lists/*
COPY omniloop-core-${VERSION}.tgz omniloop-client-${VERSION}.tgz omniloop-server-${VERSION}.tgz omniloop-${VERSION}.tgz /tmp/packs/
RUN npm install -g --no-audit --no-fund --allow-scripts=better-sqlite3 \
		/tmp/packs/omniloop-core-${VERSION}.tgz /tmp/packs/omniloop-client-${VERSION}.tgz \
		/tmp/packs/omniloop-server-${VERSION}.tgz /tmp/packs/omniloop-${VERSION}.tgz \
	&& npm cache clean --force

FROM node:20-bookworm-slim
# The shell's sandbox (docs/sandbox.md). Docker's default seccomp profile may refuse the user
# namespaces bubblewrap needs: the server then says so at start and every shell call asks a person.
RUN apt-get update \
	&& apt-get install -y --no-install-recommends bubblewrap \
	&& rm -rf /var/lib/apt/lists/*
COPY --from=install /usr/local/lib/node_modules/omniloop /usr/local/lib/node_modules/omniloop
COPY --from=install /usr/local/lib/node_modules/@omniloop /usr/local/lib/node_modules/@omniloop
RUN ln -s ../lib/node_modules/omniloop/bin/omniloop.js /usr/local/bin/omniloop \
	&& mkdir -p /data /workspace \
	&& chown node:node /data /workspace
# The omniloop home: Sessions, Traces, the SQLite store and the token (server.json) outlive the container.
ENV OMNILOOP_HOME=/data
VOLUME /data
# The folder Sessions work in: mount the project here.
WORKDIR /workspace
USER node
EXPOSE 4317
# The Host check accepts loopback names only: add `--allowed-host <the box's name>` after the
# image name in `docker run` to open it by another name (README).
HEALTHCHECK --interval=30s --timeout=5s CMD ["node", "-e", "fetch('http://127.0.0.1:4317/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["omniloop", "serve", "--host", "0.0.0.0", "--port", "4317", "--workspace-root", "/workspace"]
